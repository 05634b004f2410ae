import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import pg from 'pg';
import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import {
  createWarehouseDatabase,
  NORTH_ORDERS_SQL,
  readSalesOrders,
  WAREHOUSE_NETWORKS,
  WH_ORDERS_REPORT,
} from '../support/warehouse';
import type { WarehouseDatabase } from '../support/warehouse';

/**
 * Tenant data sources as a hard boundary (issue #37), each finding of the review as an attacker
 * with a tenant admin's token would try it: a URL that steers the driver, the gateway's own
 * server, a login that may become a writer, registration as a port scanner, and one tenant's
 * pool holding what another needs. The warehouse is the second cluster of test/support/warehouse.ts.
 */
const acmeAdmin: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const acmeAnalyst: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const globexAdmin: TokenClaims = { tenant: 'globex', user: 'groot', roles: ['admin'] };
const globexAnalyst: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };

interface Problem {
  rule: string;
  message: string;
}

async function problems(res: Response): Promise<Problem[]> {
  expect(res.status).toBe(422);
  const body = (await res.json()) as { error: { code: string; details: { problems: Problem[] } } };
  expect(body.error.code).toBe('INVALID_DATASOURCE');
  return body.error.details.problems;
}

const put = (gw: RunningGateway, who: TokenClaims, name: string, body: unknown) =>
  gw.request(`/v1/admin/datasources/${name}`, { method: 'PUT', as: who, json: body });

const source = (url: string, extra: Record<string, unknown> = {}) => ({
  url,
  schema: 'sales',
  tables: ['orders'],
  ...extra,
});

describe('data sources: what a tenant admin can point at (default networks)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway({
      DATASOURCE_KEY: randomBytes(32).toString('base64'),
      DATASOURCE_ALLOWED_NETWORKS: '',
    });
  });
  afterAll(() => gw?.close());

  it.each([
    'postgres://postgres@localhost:5432/postgres',
    'postgres://postgres@127.0.0.1:5432/postgres',
    'postgres://postgres@127.1:5432/postgres',
    'postgres://postgres@0.0.0.0:5432/postgres',
    'postgres://postgres@[::1]:5432/postgres',
    'postgres://postgres@[::ffff:127.0.0.1]:5432/postgres',
    'postgres://postgres@10.0.0.5/postgres',
    'postgres://postgres@169.254.169.254/postgres',
    'postgres://postgres@[fd00::1]/postgres',
    // MySQL-protocol sources (issue #42) go through the same connector
    'mysql://root@127.0.0.1:3306/sales',
    'mariadb://root@localhost/sales',
    'mysql://root@169.254.169.254/sales',
  ])('refuses %s: not a public address, and never connects to it', async (url) => {
    const [problem] = await problems(await put(gw, acmeAdmin, 'x', source(url)));
    expect(problem.rule).toBe('network');
    expect(problem.message).toMatch(/DATASOURCE_ALLOWED_NETWORKS/);
  });

  it('refuses driver parameters by name: options, a unix socket host, a password parameter', async () => {
    for (const [query, name] of [
      ['options=-c%20role%3Dpg_read_all_data', 'options'],
      ['host=/var/run/postgresql', 'host'],
      ['password=secret-in-query', 'password'],
      ['sslcert=/etc/passwd', 'sslcert'],
      ['sslkey=/etc/shadow', 'sslkey'],
    ]) {
      const res = await put(gw, acmeAdmin, 'x', source(`postgres://r@db.example.com/dw?${query}`));
      const text = JSON.stringify(await problems(res));
      expect(text).toContain(`\\"${name}\\"`);
      expect(text).not.toMatch(/secret-in-query|passwd|shadow/);
    }
    const socket = await put(
      gw,
      acmeAdmin,
      'x',
      source('postgres://r@%2Fvar%2Frun%2Fpostgresql/dw'),
    );
    expect((await problems(socket))[0].message).toMatch(/unix sockets/);
  });

  it('answers sslrootcert=/dev/zero with a 422 at once while /healthz goes on being served', async () => {
    const started = performance.now();
    const [res, health] = await Promise.all([
      put(
        gw,
        acmeAdmin,
        'x',
        source('postgres://r@db.example.com/dw?sslmode=require&sslrootcert=/dev/zero'),
      ),
      gw.request('/healthz'),
    ]);
    const elapsed = performance.now() - started;
    expect((await problems(res))[0].message).toMatch(/"sslrootcert"/);
    expect(health.status).toBe(200);
    expect(elapsed).toBeLessThan(2000);
    expect(process.memoryUsage().rss).toBeLessThan(2 * 1024 ** 3);
  });

  it('refuses pool_max and statement_timeout_ms past the operator bounds', async () => {
    const url = 'postgres://r@db.example.com/dw';
    const pool = await problems(await put(gw, acmeAdmin, 'x', source(url, { pool_max: 100 })));
    expect(pool[0].message).toMatch(/DATASOURCE_MAX_POOL/);
    const slow = await problems(
      await put(gw, acmeAdmin, 'x', source(url, { statement_timeout_ms: 3_600_000 })),
    );
    expect(slow[0].message).toMatch(/DATASOURCE_MAX_STATEMENT_TIMEOUT_MS/);
  });
});

describe('data sources: the boundary on allowed networks (127.0.0.0/8 for the local clusters)', () => {
  let gw: RunningGateway;
  let wh: WarehouseDatabase;
  let other: WarehouseDatabase;
  let ownLogin: string;
  const mainUrl = () => process.env.TEST_DATABASE_URL!;

  beforeAll(async () => {
    wh = await createWarehouseDatabase(NORTH_ORDERS_SQL);
    other = await createWarehouseDatabase(NORTH_ORDERS_SQL);
    gw = await startGateway({
      ...WAREHOUSE_NETWORKS,
      DATASOURCE_KEY: randomBytes(32).toString('base64'),
      // no per-tenant query limit in the way: the pools alone are under test here
      LIMIT_TENANT_CONCURRENT_QUERIES: '50',
      // a budget one big pool and another tenant's would overrun: each tenant has 6 of 12
      DATASOURCE_CONNECTION_BUDGET: '12',
      DATASOURCE_TENANT_CONNECTIONS: '6',
    });
    // a read-only login on the gateway's own server, as a tenant admin could have one
    ownLogin = `gw_own_ro_${randomBytes(4).toString('hex')}`;
    const main = new pg.Client({ connectionString: mainUrl() });
    await main.connect();
    await main.query(`CREATE ROLE ${ownLogin} LOGIN NOINHERIT`);
    await main.end();
  });
  afterAll(async () => {
    await gw?.close();
    await wh?.drop();
    await other?.drop();
    const main = new pg.Client({ connectionString: mainUrl() });
    await main.connect();
    await main.query(`DROP ROLE IF EXISTS ${ownLogin}`);
    await main.end();
  });

  it("refuses the gateway's own server whatever the login and database", async () => {
    const own = new URL(mainUrl());
    for (const [user, database] of [
      ['postgres', 'postgres'],
      [ownLogin, own.pathname.slice(1)],
      [ownLogin, 'postgres'],
    ]) {
      const url = `postgres://${user}@127.0.0.1:${own.port || 5432}/${database}`;
      const found = await problems(await put(gw, acmeAdmin, 'own', source(url)));
      expect(found).toEqual([expect.objectContaining({ rule: 'own_server' })]);
    }
  });

  it('refuses a NOINHERIT member of a writer role, naming the role', async () => {
    await wh.run(`CREATE ROLE ${wh.name}_writer NOLOGIN; GRANT USAGE ON SCHEMA sales TO ${wh.name}_writer;
      GRANT INSERT ON sales.orders TO ${wh.name}_writer`);
    const member = await wh.login(
      (r) => [...readSalesOrders(r), `GRANT ${wh.name}_writer TO ${r}`],
      'NOINHERIT',
    );
    const found = await problems(await put(gw, acmeAdmin, 'wh', source(member.url)));
    expect(found.map((p) => p.rule)).toContain('writable');
    expect(JSON.stringify(found)).toMatch(/sales\.orders/);
    const powered = await wh.login(
      (r) => [...readSalesOrders(r), `GRANT pg_write_all_data TO ${r}`],
      'NOINHERIT',
    );
    const byRole = await problems(await put(gw, acmeAdmin, 'wh', source(powered.url)));
    expect(JSON.stringify(byRole)).toMatch(/pg_write_all_data/);
    const bypass = await wh.login(readSalesOrders, 'BYPASSRLS');
    expect(
      JSON.stringify(await problems(await put(gw, acmeAdmin, 'wh', source(bypass.url)))),
    ).toMatch(/BYPASSRLS/);
    await wh.run(`DROP OWNED BY ${wh.name}_writer; DROP ROLE ${wh.name}_writer`);
  });

  it('gives one answer, after the same wait, to every failure to reach a server or log in', async () => {
    const reader = await wh.login(readSalesOrders);
    const closedPort = await freePort();
    const silent = await listen(net.createServer(() => undefined)); // accepts, never answers
    const hangUp = await listen(net.createServer((s) => s.end('HTTP/1.1 400 Bad Request\r\n\r\n')));
    const web = await listen(http.createServer((_, res) => res.end('hello')));
    const wrong = new URL(reader.url);
    wrong.password = 'not-the-password';
    const at = (port: number) => `postgres://${wrong.username}:x@127.0.0.1:${port}/${wh.name}`;
    try {
      const urls = [
        at(closedPort),
        at(port(silent)),
        at(port(hangUp)),
        at(port(web)),
        wrong.toString(),
      ];
      const answers = await Promise.all(
        urls.map(async (url) => {
          const started = performance.now();
          const res = await put(gw, acmeAdmin, 'scan', source(url));
          const [problem] = await problems(res);
          return {
            rule: problem.rule,
            text: problem.message.replace(/\(127\.0\.0\.1:\d+\)/, '(HOST)'),
            ms: performance.now() - started,
          };
        }),
      );
      expect(new Set(answers.map((a) => `${a.rule} ${a.text}`)).size).toBe(1);
      expect(answers[0].rule).toBe('unreachable');
      // each answer waits out the connect timeout: the wait tells nothing of what listens there
      const times = answers.map((a) => a.ms);
      expect(Math.min(...times)).toBeGreaterThan(2500);
      expect(Math.max(...times)).toBeLessThan(5000);
    } finally {
      for (const server of [silent, hangUp, web]) server.close();
    }
  });

  it("lets globex's source answer while acme's calls hold all acme may hold", async () => {
    const acmeReader = await wh.login(readSalesOrders);
    const globexReader = await other.login(readSalesOrders);
    expect(
      (
        await put(
          gw,
          acmeAdmin,
          'wh',
          source(acmeReader.url, { pool_max: 10, statement_timeout_ms: 30_000 }),
        )
      ).status,
    ).toBe(201);
    expect((await put(gw, globexAdmin, 'wh', source(globexReader.url))).status).toBe(201);
    for (const who of [acmeAdmin, globexAdmin])
      expect(
        (
          await gw.request('/v1/admin/reports/wh_orders', {
            method: 'PUT',
            as: who,
            json: WH_ORDERS_REPORT,
          })
        ).status,
      ).toBeLessThan(300);
    // one call first: the report is judged against its source before it is served
    const warm = await gw.request('/v1/tools/query_report_wh_orders/call', {
      method: 'POST',
      as: acmeAnalyst,
      json: { arguments: { region: 'north' } },
    });
    expect(((await warm.json()) as { is_error: boolean }).is_error).toBe(false);
    // acme's table locked on its warehouse: each acme call holds one pooled connection, waiting
    const locker = new pg.Client({ connectionString: wh.adminUrl });
    await locker.connect();
    await locker.query('BEGIN; LOCK TABLE sales.orders IN ACCESS EXCLUSIVE MODE');
    const watcher = new pg.Client({ connectionString: wh.adminUrl });
    await watcher.connect();
    const acmeCalls = Array.from({ length: 14 }, () =>
      gw.request('/v1/tools/query_report_wh_orders/call', {
        method: 'POST',
        as: acmeAnalyst,
        json: { arguments: { region: 'north' } },
      }),
    );
    try {
      await eventually(
        async () => {
          // not the locker: a transaction sees one snapshot of pg_stat_activity
          const { rows } = await watcher.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Lock'`,
            [acmeReader.role],
          );

          expect(rows[0].n).toBe(6); // pool_max 10, cut to the tenant's share
        },
        { timeoutMs: 15_000, intervalMs: 50 },
      );
      const res = await gw.request('/v1/tools/query_report_wh_orders/call', {
        method: 'POST',
        as: globexAnalyst,
        json: { arguments: { region: 'north', page_size: 3 } },
      });
      const body = (await res.json()) as { is_error: boolean; result: { rows: unknown[] } };
      expect(body.is_error).toBe(false);
      expect(body.result.rows).toHaveLength(3);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
      await watcher.end();
      await Promise.all(acmeCalls.map((c) => c.then((r) => r.text()).catch(() => '')));
    }
  });
});

function listen<T extends net.Server>(server: T): Promise<T> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function port(server: net.Server): number {
  return (server.address() as net.AddressInfo).port;
}

async function freePort(): Promise<number> {
  const server = await listen(net.createServer());
  const p = port(server);
  await new Promise((resolve) => server.close(resolve));
  return p;
}
