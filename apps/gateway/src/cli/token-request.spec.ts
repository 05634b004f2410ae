import { parseTokenArgs } from './token-request';

const USAGE = 'usage: test --tenant T --user U';

describe('parseTokenArgs (token and console-url scripts)', () => {
  it('reads tenant, user, roles, claims and ttl', () => {
    const request = parseTokenArgs(
      [
        '--tenant',
        'acme',
        '--user',
        'sam',
        '--roles',
        'sales_rep, admin,',
        '--claim',
        'region=east=1',
        '--ttl',
        '60',
      ],
      USAGE,
    );
    expect(request).toEqual({
      tenant: 'acme',
      user: 'sam',
      roles: ['sales_rep', 'admin'],
      claims: { region: 'east=1' },
      ttlSeconds: 60,
    });
  });

  it('defaults to no roles, no claims and an hour', () => {
    expect(parseTokenArgs(['--tenant', 'acme', '--user', 'sam'], USAGE)).toEqual({
      tenant: 'acme',
      user: 'sam',
      roles: [],
      claims: {},
      ttlSeconds: 3600,
    });
  });

  it('takes --base (without trailing slashes) only where the script allows it', () => {
    const args = ['--tenant', 'acme', '--user', 'ada', '--base', 'http://h:1//'];
    expect(parseTokenArgs(args, USAGE, true).base).toBe('http://h:1');
    expect(() => parseTokenArgs(args, USAGE)).toThrow('unknown option --base');
  });

  it('refuses a missing value, a bad claim, a bad ttl and a missing tenant or user', () => {
    expect(() => parseTokenArgs(['--tenant'], USAGE)).toThrow('--tenant needs a value');
    expect(() => parseTokenArgs(['--claim', '=x'], USAGE)).toThrow(
      '--claim takes name=value; got "=x"',
    );
    expect(() => parseTokenArgs(['--ttl', '1.5'], USAGE)).toThrow(
      '--ttl takes a positive number of seconds',
    );
    expect(() => parseTokenArgs(['--tenant', 'acme'], USAGE)).toThrow(USAGE);
  });
});
