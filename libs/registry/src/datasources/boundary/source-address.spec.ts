import { AllowedNetworks, unmapped } from './allowed-networks';
import { parseSourceUrl } from './source-address';

describe('parseSourceUrl: a tenant URL parsed by the gateway, never handed to a driver', () => {
  const refusal = (url: string) => {
    const parsed = parseSourceUrl(url);
    if (parsed.ok) throw new Error(`accepted ${url}`);
    return parsed.problem.message;
  };

  it('takes host, port, database, login, password and sslmode apart', () => {
    expect(
      parseSourceUrl('postgres://rd%40x:p%2Fw@db.example.com:6543/dw?sslmode=verify-full'),
    ).toEqual({
      ok: true,
      endpoint: {
        engine: 'postgres',
        host: 'db.example.com',
        port: 6543,
        database: 'dw',
        user: 'rd@x',
        password: 'p/w',
        sslmode: 'verify-full',
      },
    });
    const v6 = parseSourceUrl('postgresql://r@[2001:DB8::5]/dw');
    expect(v6.ok && v6.endpoint).toMatchObject({
      host: '2001:db8::5',
      port: 5432,
      password: '',
      sslmode: 'disable',
    });
  });

  it('reads mysql:// and mariadb:// as MySQL-protocol sources on 3306, by the same rules', () => {
    const my = parseSourceUrl('mysql://reader:pw@warehouse.example.com/shop?sslmode=require');
    expect(my).toEqual({
      ok: true,
      endpoint: {
        engine: 'mysql',
        host: 'warehouse.example.com',
        port: 3306,
        database: 'shop',
        user: 'reader',
        password: 'pw',
        sslmode: 'require',
      },
    });
    const maria = parseSourceUrl('mariadb://reader@10.1.2.3:3307/shop');
    expect(maria.ok && maria.endpoint).toMatchObject({ engine: 'mysql', port: 3307 });
    expect(refusal('mysql://reader@db.example.com/shop?allowLoadLocalInfile=true')).toMatch(
      /no parameter but sslmode; refused: "allowLoadLocalInfile"/,
    );
    expect(refusal('mysql://reader@%2Fvar%2Frun%2Fmysqld%2Fmysqld.sock/shop')).toMatch(
      /unix sockets and paths are not accepted/,
    );
    expect(refusal('oracle://reader@db.example.com/shop')).toMatch(
      /must start with postgres:\/\/, postgresql:\/\/, mysql:\/\/, mariadb:\/\//,
    );
  });

  it.each([
    'options',
    'host',
    'hostaddr',
    'sslrootcert',
    'sslcert',
    'sslkey',
    'passfile',
    'service',
    'password',
    'user',
    'application_name',
    'port',
    'dbname',
    'sslcompression',
  ])('refuses the parameter %s by name, before any connection', (param) => {
    const message = refusal(`postgres://r@db.example.com/dw?${param}=x`);
    expect(message).toContain(`"${param}"`);
    expect(message).not.toMatch(/db\.example\.com/);
  });

  it('refuses the attacks of issue #37 as written', () => {
    expect(
      refusal('postgres://postgres@127.0.0.1:5432/other?options=-c%20role%3Dpg_read_all_data'),
    ).toMatch(/"options"/);
    expect(refusal('postgres://r@h.example/dw?sslmode=require&sslrootcert=/dev/zero')).toMatch(
      /"sslrootcert"/,
    );
    expect(refusal('postgres://r@h.example/dw?password=secret')).toMatch(/"password"/);
    expect(refusal('postgres://r@h.example/dw?host=/var/run/postgresql')).toMatch(/"host"/);
  });

  it('refuses unix sockets and paths in the host, however written', () => {
    for (const url of [
      'postgres://r@%2Fvar%2Frun%2Fpostgresql/dw',
      'postgres://r@/dw',
      'postgres:///dw',
      'postgres://r@ho_st/dw',
    ])
      expect(refusal(url)).toMatch(/network host|login and a database|not a URL/);
  });

  it('refuses other schemes, unknown sslmodes, a missing login or database', () => {
    expect(refusal('jdbc://r@h.example/dw')).toMatch(/postgres:\/\//);
    expect(refusal('postgres://r@h.example/dw?sslmode=prefer')).toMatch(/sslmode must be/);
    expect(refusal('postgres://h.example/dw')).toMatch(/login and a database/);
    expect(refusal('postgres://r@h.example/')).toMatch(/login and a database/);
    expect(refusal('postgres://r@h.example/dw?sslmode=require&sslmode=disable')).toMatch(
      /more than once/,
    );
  });
});

describe('AllowedNetworks: where a source may point', () => {
  const defaults = AllowedNetworks.parse(undefined);

  it('by default allows public unicast addresses only', () => {
    for (const ok of ['8.8.8.8', '93.184.216.34', '2606:4700::1111'])
      expect(defaults.allows(ok)).toBe(true);
    for (const refused of [
      '127.0.0.1',
      '127.0.0.2',
      '0.0.0.0',
      '10.1.2.3',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '::1',
      '::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '224.0.0.1',
      'not-an-ip',
    ])
      expect(defaults.allows(refused)).toBe(false);
  });

  it('with CIDRs set allows exactly those (and public only when listed)', () => {
    const local = AllowedNetworks.parse('127.0.0.0/8, 10.20.0.0/16');
    expect(local.allows('127.0.0.1')).toBe(true);
    expect(local.allows('::ffff:127.0.0.1')).toBe(true);
    expect(local.allows('10.20.3.4')).toBe(true);
    expect(local.allows('10.21.0.1')).toBe(false);
    expect(local.allows('8.8.8.8')).toBe(false);
    expect(AllowedNetworks.parse('public,10.0.0.0/8').allows('8.8.8.8')).toBe(true);
  });

  it('refuses a malformed network at start-up', () => {
    expect(() => AllowedNetworks.parse('127.0.0.0/33')).toThrow(/not a CIDR/);
    expect(() => AllowedNetworks.parse('localhost')).toThrow(/not a CIDR/);
  });

  it('unwraps IPv4-mapped IPv6 addresses', () => {
    expect(unmapped('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(unmapped('0:0:0:0:0:ffff:7f00:1')).toBe('127.0.0.1');
    expect(unmapped('2001:db8::1')).toBe('2001:db8::1');
  });
});
