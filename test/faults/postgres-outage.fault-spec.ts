import pg from 'pg';
import { callTool, contained, listedTools } from '../support/containment';
import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { TcpProxy } from '../support/tcp-proxy';
import { createTestDatabase } from '../support/test-database';
import type { TestDatabase } from '../support/test-database';

const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const fiona: TokenClaims = { tenant: 'acme', user: 'fiona', roles: ['finance'] };
const gina: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };

const filter = (name: string, description: string) => ({
  name,
  type: 'number',
  description,
  required: false,
  enum_values: null,
  default: null,
});
const field = (name: string, description: string) => ({ name, type: 'number', description });
/** Two lives of one report: every part (row, filters, fields) tells which one is stored. */
const OLD = {
  name: 'Orders above (old)',
  description: 'The old life of this report.',
  sql_template: 'SELECT count(*) AS n FROM orders o WHERE o.total_amount >= coalesce(:old_min, 0)',
  category: 'sales',
  status: 'active',
  filters: [filter('old_min', 'old smallest total')],
  fields: [field('n', 'old count')],
};
const NEW = {
  ...OLD,
  name: 'Orders above (new)',
  description: 'The new life of this report.',
  sql_template:
    'SELECT count(*) AS m FROM orders o WHERE o.total_amount BETWEEN coalesce(:new_min, 0) AND coalesce(:new_cap, 1e12)',
  filters: [filter('new_min', 'new smallest total'), filter('new_cap', 'new cap')],
  fields: [field('m', 'new count')],
};

/**
 * Fault: Postgres becomes unreachable (a TCP proxy in front of it closes every connection and
 * refuses new ones) while a call runs, or while an admin write is inside its transaction. A
 * lock the test holds keeps the statement waiting, so the cut lands mid-statement every time.
 */
describe('faults: Postgres unreachable mid-call and mid-admin-write', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let gw: RunningGateway;
  let locker: pg.Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    const url = new URL(database.url);
    proxy = new TcpProxy(url.hostname, Number(url.port || 5432));
    await proxy.start();
    url.host = `127.0.0.1:${proxy.port}`;
    gw = await startGateway(
      { DATABASE_URL: url.toString(), REPORT_STATEMENT_TIMEOUT_MS: '60000' },
      database,
    );
  });
  afterAll(async () => {
    await gw.close();
    await proxy.stop();
    await database.drop();
  });
  beforeEach(async () => {
    locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
  });
  afterEach(async () => {
    await locker.end();
    // the proxy is back after each test, on its port
    if (!proxy.listening) await proxy.start(proxy.port);
  });

  /** Holds `lock` on `table` in an open transaction until `release`. */
  const hold = async (table: string, mode: string) => {
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${table} IN ${mode} MODE`);
  };
  const release = () => locker.query('ROLLBACK');
  /** Resolves once a gateway statement waits for the lock the test holds on `table`. */
  const waiting = (table: string) =>
    eventually(async () => {
      // pg_locks, not pg_stat_activity: the latter is a snapshot inside the locker's transaction
      const { rows } = await locker.query(
        'SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = $1::regclass',
        [table],
      );
      expect(rows[0].n).toBe(1);
    });
  /** A 503 with a code and a message saying to retry, or a contained answer; never a stack. */
  const unavailableOrContained = async (res: Response) => {
    const text = await res.text();
    expect(text).not.toMatch(/\bat \S+ \(|\.ts:\d+:\d+|\.js:\d+:\d+|node:internal|ECONN/);
    if (res.status >= 500) {
      expect(res.status).toBe(503);
      expect(JSON.parse(text)).toMatchObject({ error: { code: 'DATABASE_UNAVAILABLE' } });
    }
    return { status: res.status, text };
  };

  it('a call whose query is running: a coded DATA_UNAVAILABLE, no stack; every tenant is served again after', async () => {
    const warm = await listedTools(gw, gina);
    const before = await callTool(gw, fiona, 'query_report_revenue_by_month', { year: 2025 });
    expect(before.body).toMatchObject({ is_error: false });
    await hold('tenant_acme.orders', 'ACCESS EXCLUSIVE');
    // other arguments than the warm-up's: nothing of this call can come from memory
    const running = callTool(gw, fiona, 'query_report_revenue_by_month', { year: 2024 });
    await waiting('tenant_acme.orders');
    await proxy.stop();
    const { status, body } = await running;
    expect(status).toBe(200);
    expect(body).toMatchObject({
      is_error: true,
      error: {
        code: 'DATA_UNAVAILABLE',
        message: 'the report database is unavailable right now; try again later',
      },
    });
    await release();
    expect(await listedTools(gw, gina)).toEqual(warm); // from memory while Postgres is away
    await proxy.start(proxy.port);
    await eventually(
      async () => {
        const again = await callTool(gw, fiona, 'query_report_revenue_by_month', { year: 2025 });
        expect(again.body).toMatchObject({ is_error: false });
      },
      { timeoutMs: 10_000 },
    );
    const other = await callTool(gw, gina, 'query_report_sales_by_region', { region: 'east' });
    expect(other.body).toMatchObject({ is_error: false });
  });

  /** The stored report, read straight from Postgres: row, filters and fields. */
  const stored = async (id: string) => {
    const { rows } = await locker.query(
      `SELECT r.name, r.description, r.sql_template,
              (SELECT array_agg(name ORDER BY position) FROM gateway.report_filters f
                WHERE f.tenant_id = r.tenant_id AND f.report_id = r.id) AS filters,
              (SELECT array_agg(name ORDER BY position) FROM gateway.report_fields f
                WHERE f.tenant_id = r.tenant_id AND f.report_id = r.id) AS fields
       FROM gateway.reports r WHERE r.tenant_id = 'acme' AND r.id = $1`,
      [id],
    );
    return rows[0] as Record<string, unknown> | undefined;
  };
  const life = (doc: typeof OLD) => ({
    name: doc.name,
    description: doc.description,
    sql_template: doc.sql_template,
    filters: doc.filters.map((f) => f.name),
    fields: doc.fields.map((f) => f.name),
  });
  /** What the gateway serves of the report once Postgres is back: the stored life, whole. */
  const servedAs = async (id: string, doc: typeof OLD | undefined) =>
    eventually(
      async () => {
        const res = await contained(await gw.request(`/v1/admin/reports/${id}`, { as: root }));
        if (!doc) return expect(res.status).toBe(404);
        expect(JSON.parse(res.text)).toMatchObject({
          report: { name: doc.name, description: doc.description },
          status: { served: true },
        });
        const tools = await contained(await gw.request('/v1/tools', { as: root }));
        const tool = (
          JSON.parse(tools.text) as {
            tools: Array<{ function: { name: string; description: string; parameters: object } }>;
          }
        ).tools.find((t) => t.function.name === `query_report_${id}`);
        expect(tool?.function.description).toContain(doc.description);
        expect(Object.keys(tool?.function.parameters ?? {})).toContain('properties');
        const props = (tool!.function.parameters as { properties: object }).properties;
        for (const f of doc.filters) expect(props).toHaveProperty(f.name);
      },
      { timeoutMs: 10_000 },
    );

  it.each([
    // PUT: after the row and the filters are written, at the fields; DELETE: at the cascade
    ['PUT', 'gateway.report_fields'],
    ['DELETE', 'gateway.report_filters'],
  ])(
    'an admin %s cut mid-write: a coded 503, the report wholly old or wholly new after, never half; the write applies when retried',
    async (method, table) => {
      const id = `cut_${method.toLowerCase()}`;
      const put = (doc: typeof OLD) =>
        gw.request(`/v1/admin/reports/${id}`, { method: 'PUT', as: root, json: doc });
      expect((await contained(await put(OLD))).status).toBe(201);
      await servedAs(id, OLD);
      // SHARE mode lets the gateway read its catalog, and stops the write inside its transaction
      await hold(table, 'SHARE');
      const writing =
        method === 'PUT' ? put(NEW) : gw.request(`/v1/admin/reports/${id}`, { method, as: root });
      await waiting(table);
      await proxy.stop();
      const { status } = await unavailableOrContained(await writing);
      expect(status).toBe(503);
      await release();
      // the cut statement ends on the server: its locks go with it
      await eventually(async () => {
        const { rows } = await locker.query(
          'SELECT count(*)::int AS n FROM pg_locks WHERE relation = $1::regclass',
          [table],
        );
        expect(rows[0].n).toBe(0);
      });
      // wholly old (the PUT's transaction is rolled back: the client that could commit it is
      // gone) or wholly new (the DELETE is one statement); never a row without its parts
      const after = await stored(id);
      expect([life(OLD), method === 'DELETE' ? undefined : life(OLD)]).toContainEqual(after);
      const orphans = await locker.query(
        `SELECT (SELECT count(*) FROM gateway.report_filters WHERE report_id = $1)
              + (SELECT count(*) FROM gateway.report_fields WHERE report_id = $1) AS n`,
        [id],
      );
      expect(Number(orphans.rows[0].n)).toBe(after ? 2 : 0);
      await proxy.start(proxy.port);
      await servedAs(id, after ? OLD : undefined);
      // the same write again, with Postgres back: wholly applied
      await eventually(
        async () => {
          const again =
            method === 'PUT'
              ? await put(NEW)
              : await gw.request(`/v1/admin/reports/${id}`, { method, as: root });
          // a DELETE that was applied already is a 404 the second time
          expect((await contained(again)).status).toBe(method === 'PUT' ? 200 : after ? 204 : 404);
        },
        { timeoutMs: 10_000 },
      );
      expect(await stored(id)).toEqual(method === 'PUT' ? life(NEW) : undefined);
      await servedAs(id, method === 'PUT' ? NEW : undefined);
    },
  );
});
