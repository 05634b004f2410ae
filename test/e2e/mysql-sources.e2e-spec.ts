import { randomBytes } from 'node:crypto';
import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { createMariaDatabase } from '../support/mariadb';
import type { MariaDatabase, MariaLogin } from '../support/mariadb';
import { RogueMysqlServer } from '../support/rogue-mysql';
import { TcpProxy } from '../support/tcp-proxy';
import { WAREHOUSE_NETWORKS } from '../support/warehouse';

/**
 * MySQL-protocol warehouses (issue #42), on this machine's MariaDB: registration judges the
 * login by its grants (its roles' included), a report is judged by the MySQL guard and runs
 * prepared in a READ ONLY transaction, its values come back typed like Postgres ones, a call
 * given up by its client is killed on the server, and a source that goes away fails only its
 * own tenant's calls and comes back by itself.
 */
const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const gary: TokenClaims = { tenant: 'globex', user: 'gary', roles: ['analyst'] };

const ORDERS = `
  CREATE TABLE orders (
    id BIGINT PRIMARY KEY,
    customer VARCHAR(40) NOT NULL,
    region VARCHAR(10) NOT NULL,
    amount DECIMAL(12, 2) NOT NULL,
    placed_at DATETIME NOT NULL,
    placed_on DATE NOT NULL,
    paid TINYINT(1) NOT NULL,
    details JSON
  );
  INSERT INTO orders VALUES
    (1, 'Ada', 'north', 120.50, '2026-01-03 09:15:00', '2026-01-03', 1, '{"channel": "web"}'),
    (2, 'Bo', 'south', 80.00, '2026-01-04 10:00:00', '2026-01-04', 0, NULL),
    (3, 'Cy', 'north', 310.25, '2026-02-10 16:45:30', '2026-02-10', 1, '{"channel": "shop"}'),
    (4, 'Di', 'north', 45.10, '2026-03-01 08:00:00', '2026-03-01', 0, '{"channel": "web"}'),
    (5, 'Ed', 'east', 990.00, '2026-03-02 12:00:00', '2026-03-02', 1, NULL),
    (6, 'Flo', 'north', 9007199254.99, '2026-03-05 18:30:00', '2026-03-05', 1, NULL);
  CREATE TABLE numbers (n INT PRIMARY KEY);
  INSERT INTO numbers SELECT seq FROM seq_1_to_2000;
  CREATE TABLE secrets (id INT PRIMARY KEY, word VARCHAR(20));
  INSERT INTO secrets VALUES (1, 'hidden');
`;

/** A report as MySQL users write them: backticks, `#` and `-- ` comments, IF(), a `:` in a string. */
const ORDERS_REPORT = {
  name: 'Orders of a region',
  description: 'Orders of a region placed in a date range, largest first.',
  sql_template: [
    'SELECT o.`id`, o.customer, o.amount, o.placed_at, o.placed_on,',
    "  o.paid, o.details, IF(o.amount >= :min_amount, 'big: yes', 'big: no') AS size # size class",
    'FROM `orders` o',
    '-- the region and the dates the caller asked for',
    'WHERE o.region = :region',
    '  AND (:placed_start IS NULL OR o.placed_on >= :placed_start)',
    '  AND (:placed_end IS NULL OR o.placed_on <= :placed_end)',
    'ORDER BY o.amount DESC;',
  ].join('\n'),
  category: 'sales',
  datasource: 'shop',
  filters: [
    { name: 'region', type: 'string', required: true },
    { name: 'placed', type: 'date_range', required: false },
    { name: 'min_amount', type: 'number', required: false, default: 100 },
  ],
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'customer', type: 'string' },
    { name: 'amount', type: 'number' },
    { name: 'placed_at', type: 'timestamp' },
    { name: 'placed_on', type: 'date' },
    { name: 'paid', type: 'boolean' },
    { name: 'details', type: 'json' },
    { name: 'size', type: 'string' },
  ],
};

interface Outcome {
  is_error: boolean;
  error?: { code: string; message: string };
  result?: { columns: Array<{ name: string; type: string }>; rows: Array<Record<string, unknown>> };
}

describe('MySQL-protocol data sources on MariaDB (e2e)', () => {
  let gw: RunningGateway;
  let db: MariaDatabase;
  let reader: MariaLogin;
  let proxy: TcpProxy;

  const put = (path: string, json: unknown) => gw.request(path, { method: 'PUT', as: root, json });
  const source = (login: MariaLogin, extra: Record<string, unknown> = {}) => ({
    url: login.url,
    schema: db.name,
    tables: ['orders'],
    ...extra,
  });
  const refusal = async (name: string, body: unknown): Promise<string> => {
    const res = await put(`/v1/admin/datasources/${name}`, body);
    const text = await res.text();
    expect([res.status, text]).toEqual([422, expect.any(String)]);
    return (JSON.parse(text) as { error: { message: string } }).error.message;
  };
  const call = async (who: TokenClaims, tool: string, args: unknown, signal?: AbortSignal) => {
    const res = await gw.request(`/v1/tools/${tool}/call`, {
      method: 'POST',
      as: who,
      json: { arguments: args },
      signal,
    });
    expect(res.status).toBe(200);
    return (await res.json()) as Outcome;
  };
  /** the statements the reader login is running on the server right now */
  const readerQueries = async (): Promise<string[]> => {
    const [rows] = (await db.root.query(
      'SELECT INFO AS info FROM information_schema.PROCESSLIST WHERE USER = ? AND COMMAND <> ?',
      [reader.user, 'Sleep'],
    )) as unknown as [Array<{ info: string | null }>];
    return rows.map((r) => r.info ?? '').filter((info) => info !== '');
  };

  beforeAll(async () => {
    db = await createMariaDatabase(ORDERS);
    reader = await db.login((u) => [`GRANT SELECT, SHOW VIEW ON \`${db.name}\`.* TO ${u}`]);
    proxy = new TcpProxy('127.0.0.1', 3306);
    await proxy.start();
    gw = await startGateway({
      ...WAREHOUSE_NETWORKS,
      DATASOURCE_KEY: randomBytes(32).toString('base64'),
      DATASOURCE_CONNECT_TIMEOUT_MS: '1000',
      DATASOURCE_BREAKER_FAILURES: '2',
      DATASOURCE_BREAKER_COOLDOWN_MS: '500',
    });
    const saved = await put('/v1/admin/datasources/shop', source(reader));
    expect([saved.status, await saved.text()]).toEqual([201, expect.stringContaining('"mysql"')]);
    const report = await put('/v1/admin/reports/shop_orders', ORDERS_REPORT);
    expect([report.status, await report.text()]).toEqual([201, expect.any(String)]);
  });
  afterAll(async () => {
    await gw?.close();
    await proxy?.stop();
    await db?.drop();
  });

  it('registers a reader, shown without its password, with the server it reached', async () => {
    const view = (await (await gw.request('/v1/admin/datasources/shop', { as: root })).json()) as {
      url: string;
      engine: string;
      health: { reachable: boolean; server_version: string };
    };
    expect(view.engine).toBe('mysql');
    expect(view.url).toBe(`mysql://${reader.user}@127.0.0.1:3306/${db.name}`);
    expect(JSON.stringify(view)).not.toContain(reader.password);
    expect(view.health.reachable).toBe(true);
    expect(view.health.server_version).toMatch(/MariaDB/);
  });

  it('refuses a writer, a FILE and a SUPER login, and a role that writes, naming the grant', async () => {
    const writer = await db.login((u) => [`GRANT SELECT, INSERT ON \`${db.name}\`.* TO ${u}`]);
    expect(await refusal('w', source(writer))).toMatch(
      /the login may do more than read: GRANT SELECT, INSERT ON `gw_\w+`\.\* TO `gw_\w+`@`%`: INSERT is more than reading/,
    );
    const filer = await db.login((u) => [
      `GRANT SELECT ON \`${db.name}\`.* TO ${u}`,
      `GRANT FILE ON *.* TO ${u}`,
    ]);
    expect(await refusal('f', source(filer))).toMatch(/FILE is more than reading/);
    const superuser = await db.login((u) => [
      `GRANT SELECT ON \`${db.name}\`.* TO ${u}`,
      `GRANT SUPER ON *.* TO ${u}`,
    ]);
    expect(await refusal('s', source(superuser))).toMatch(/SUPER is more than reading/);
    const writes = await db.role((r) => [`GRANT UPDATE ON \`${db.name}\`.orders TO ${r}`]);
    const holder = await db.login((u) => [
      `GRANT SELECT ON \`${db.name}\`.* TO ${u}`,
      `GRANT \`${writes}\` TO ${u}`,
    ]);
    expect(await refusal('r', source(holder))).toMatch(
      new RegExp(
        `GRANT UPDATE ON \`gw_\\w+\`\\.\`orders\` TO \`${writes}\`: UPDATE is more than reading`,
      ),
    );
    const everywhere = await db.login((u) => [`GRANT SELECT ON *.* TO ${u}`]);
    expect(await refusal('e', source(everywhere))).toMatch(/reads every database of the server/);
  });

  it('sends no file to a server that asks for one (LOCAL INFILE), and refuses it', async () => {
    const rogue = new RogueMysqlServer('/etc/passwd');
    const port = await rogue.start();
    try {
      const message = await refusal('rogue', {
        url: `mysql://u:p@127.0.0.1:${port}/${db.name}`,
        schema: db.name,
        tables: ['orders'],
      });
      expect(message).toMatch(/could not be reached, or it refused the login/);
      expect(rogue.asked).toBe(1);
      // the gateway answered the request with an empty packet: no byte of the file
      const sent = Buffer.concat(rogue.afterRequest);
      expect(sent.toString('latin1')).not.toContain('root:');
      expect(sent.length).toBeLessThanOrEqual(4);
    } finally {
      await rogue.stop();
    }
  });

  it('refuses a missing table, a schema other than the database, pass_identity, mixed engines', async () => {
    expect(await refusal('m', { ...source(reader), tables: ['orders', 'nope'] })).toMatch(
      /no table nope that the login may read in database gw_/,
    );
    expect(await refusal('m', { ...source(reader), schema: 'other' })).toMatch(
      /on a MySQL source the schema is the database/,
    );
    expect(await refusal('m', { ...source(reader), pass_identity: true })).toMatch(
      /pass_identity .* is for postgres:\/\/ sources only/,
    );
    expect(
      await refusal('m', { ...source(reader), replicas: ['postgres://r@db.example.com/x'] }),
    ).toMatch(/all be of one engine/);
  });

  it('runs a report with filters, prepared, and its rows match the same query run directly', async () => {
    const args = { region: 'north', placed: { start: '2026-01-01', end: '2026-03-04' } };
    const outcome = await call(alice, 'query_report_shop_orders', args);
    expect(outcome.error).toBeUndefined();
    const [direct] = (await db.root.query(
      `SELECT id, customer, amount, placed_at, placed_on, paid, details FROM \`${db.name}\`.orders
        WHERE region = ? AND placed_on BETWEEN ? AND ? ORDER BY amount DESC`,
      ['north', '2026-01-01', '2026-03-04'],
    )) as unknown as [Array<Record<string, unknown>>];
    expect(outcome.result!.rows).toEqual(
      direct.map((r) => ({
        id: Number(r.id),
        customer: r.customer,
        amount: Number(r.amount),
        placed_at: r.placed_at,
        placed_on: r.placed_on,
        paid: Number(r.paid) === 1,
        details: r.details,
        size: Number(r.amount) >= 100 ? 'big: yes' : 'big: no',
      })),
    );
    expect(outcome.result!.rows.map((r) => r.id)).toEqual([3, 1, 4]);
  });

  it('maps DECIMAL, BIGINT, DATETIME, DATE, TINYINT(1) and JSON to the report field types', async () => {
    const outcome = await call(alice, 'query_report_shop_orders', { region: 'north' });
    expect(outcome.result!.columns).toEqual([
      { name: 'id', type: 'integer' },
      { name: 'customer', type: 'string' },
      { name: 'amount', type: 'number' },
      { name: 'placed_at', type: 'timestamp' },
      { name: 'placed_on', type: 'date' },
      { name: 'paid', type: 'boolean' },
      { name: 'details', type: 'json' },
      { name: 'size', type: 'string' },
    ]);
    expect(outcome.result!.rows[0]).toEqual({
      id: 6,
      customer: 'Flo',
      amount: 9007199254.99,
      placed_at: '2026-03-05 18:30:00',
      placed_on: '2026-03-05',
      paid: true,
      details: null,
      size: 'big: yes',
    });
    expect(outcome.result!.rows.find((r) => r.id === 1)?.details).toEqual({ channel: 'web' });
  });

  it('pages with LIMIT/OFFSET placeholders', async () => {
    const first = await call(alice, 'query_report_shop_orders', { region: 'north', page_size: 2 });
    const second = await call(alice, 'query_report_shop_orders', {
      region: 'north',
      page_size: 2,
      page: 2,
    });
    expect(first.result!.rows.map((r) => r.id)).toEqual([6, 3]);
    expect(second.result!.rows.map((r) => r.id)).toEqual([1, 4]);
  });

  it.each([
    ['SELECT SLEEP(5) AS s FROM orders', /function SLEEP is not allowed/],
    ['SELECT id FROM orders /*!50000 UNION SELECT word FROM secrets */', /executable comment/],
    ['SELECT word AS id FROM secrets', /table secrets is not in the source's list/],
    ['SELECT user AS id FROM mysql.user', /system schema mysql/],
    ['SELECT id FROM orders INTO OUTFILE "/tmp/x"', /INTO|not SQL the guard can read/],
    ['SELECT id FROM orders WHERE id = ?', /a \? placeholder written by hand/],
  ])('refuses a report whose template is %s, by the MySQL guard', async (sql, reason) => {
    const res = await put('/v1/admin/reports/shop_bad', {
      ...ORDERS_REPORT,
      sql_template: sql,
      filters: [],
      fields: [{ name: 'id', type: 'integer' }],
    });
    const text = await res.text();
    expect([res.status, text]).toEqual([422, expect.stringMatching(reason)]);
  });

  /**
   * A report that counts a cube of 2,000 numbers (minutes of work: the server notices nothing of
   * a closed socket meanwhile), on a source of its own with the given statement timeout.
   */
  const cubeCount = async (name: string, statementTimeoutMs: number): Promise<string> => {
    const saved = await put(`/v1/admin/datasources/${name}`, {
      ...source(reader),
      tables: ['numbers'],
      statement_timeout_ms: statementTimeoutMs,
    });
    expect(saved.status).toBe(201);
    const report = await put(`/v1/admin/reports/${name}_count`, {
      name: `Cube count on ${name}`,
      description: 'Counts a cube of numbers.',
      sql_template: 'SELECT COUNT(*) AS n FROM numbers a CROSS JOIN numbers b CROSS JOIN numbers c',
      category: 'sales',
      datasource: name,
      filters: [],
      fields: [{ name: 'n', type: 'integer' }],
    });
    expect(report.status).toBe(201);
    return `query_report_${name}_count`;
  };

  it('kills on the server a call its client gave up (KILL QUERY)', async () => {
    const tool = await cubeCount('shop_slow', 60_000);
    const client = new AbortController();
    const pending = call(alice, tool, {}, client.signal)
      .then(() => 'answered')
      .catch((err: Error) => err.name);
    await eventually(async () => {
      if (!(await readerQueries()).some((q) => q.includes('CROSS JOIN')))
        throw new Error('not running yet');
    });
    client.abort();
    expect(await pending).toBe('AbortError');
    await eventually(async () => {
      const running = await readerQueries();
      if (running.length > 0) throw new Error(`still running: ${running.join('; ')}`);
    });
  });

  it('stops a statement past its source timeout on the server (max_statement_time): TIMEOUT', async () => {
    const outcome = await call(alice, await cubeCount('shop_quick', 300), {});
    expect(outcome.error?.code).toBe('TIMEOUT');
    expect(await readerQueries()).toEqual([]);
  });

  describe('through a proxy that goes away', () => {
    beforeAll(async () => {
      const url = new URL(reader.url);
      url.port = String(proxy.port);
      const saved = await put(
        '/v1/admin/datasources/shop_far',
        source(reader, { url: url.toString() }),
      );
      expect(saved.status).toBe(201);
      const report = await put('/v1/admin/reports/far_orders', {
        ...ORDERS_REPORT,
        datasource: 'shop_far',
      });
      expect(report.status).toBe(201);
    });

    it('fails only its own calls while down, and recovers by itself', async () => {
      const far = () => call(alice, 'query_report_far_orders', { region: 'north' });
      const globex = () => call(gary, 'query_report_sales_by_region', { region: 'east' });
      expect((await far()).error).toBeUndefined();
      await proxy.stop();
      for (let i = 0; i < 3; i++) {
        expect((await far()).error?.code).toBe('DATASOURCE_UNAVAILABLE');
        const other = await globex();
        expect(other.error).toBeUndefined();
        expect(other.result!.rows.length).toBeGreaterThan(0);
        expect(
          (await call(alice, 'query_report_shop_orders', { region: 'east' })).error,
        ).toBeUndefined();
      }
      await proxy.start(proxy.port);
      await eventually(
        async () => {
          const back = await far();
          if (back.error) throw new Error(back.error.message);
        },
        { timeoutMs: 10_000 },
      );
    });
  });
});
