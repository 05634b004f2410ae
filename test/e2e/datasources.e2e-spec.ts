import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { createWarehouseDatabase, withLogin, WAREHOUSE_NETWORKS } from '../support/warehouse';
import type { WarehouseDatabase } from '../support/warehouse';

/**
 * Tenant data sources (issue #30) end to end: a second Postgres server (the warehouse server
 * of TEST_WAREHOUSE_URL, test/support/warehouse.ts) registered through the admin API with a read-only
 * login, a report running on it, the refusals, the secret at rest and tenant isolation.
 */
const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const groot: TokenClaims = { tenant: 'globex', user: 'groot', roles: ['admin'] };

/** A warehouse with values the gateway's own demo data does not hold. */
const WAREHOUSE_SQL = `
  CREATE SCHEMA sales;
  CREATE TABLE sales.orders (id integer PRIMARY KEY, region text NOT NULL, total_amount numeric NOT NULL);
  INSERT INTO sales.orders SELECT g, CASE WHEN g % 2 = 0 THEN 'north' ELSE 'south' END, 7000 + g
    FROM generate_series(1, 40) g;
  CREATE TABLE sales.payroll (id integer PRIMARY KEY, salary numeric);
`;

const REPORT = {
  name: 'Warehouse orders',
  description: 'Orders of a region, from the tenant warehouse.',
  sql_template:
    'SELECT o.id AS order_id, o.total_amount FROM orders o WHERE o.region = :region ORDER BY o.id',
  category: 'sales',
  datasource: 'wh',
  filters: [{ name: 'region', type: 'string', required: true }],
  fields: [
    { name: 'order_id', type: 'integer' },
    { name: 'total_amount', type: 'number' },
  ],
};

interface Problem {
  rule: string;
  message: string;
}

describe('tenant data sources (e2e, a second Postgres server)', () => {
  let gw: RunningGateway;
  let wh: WarehouseDatabase;
  let reader: { role: string; url: string };

  beforeAll(async () => {
    wh = await createWarehouseDatabase(WAREHOUSE_SQL);
    reader = await wh.login((r) => [
      `GRANT USAGE ON SCHEMA sales TO ${r}`,
      `GRANT SELECT ON sales.orders TO ${r}`,
    ]);
    gw = await startGateway({
      ...WAREHOUSE_NETWORKS,
      DATASOURCE_KEY: randomBytes(32).toString('base64'),
    });
  });
  afterAll(async () => {
    await gw?.close();
    await wh?.drop();
  });

  const putSource = (who: TokenClaims, name: string, body: unknown) =>
    gw.request(`/v1/admin/datasources/${name}`, { method: 'PUT', as: who, json: body });
  const source = (url: string, tables = ['orders']) => ({ url, schema: 'sales', tables });
  const refusal = async (res: Response): Promise<Problem[]> => {
    expect(res.status).toBe(422);
    const body = (await res.json()) as {
      error: { code: string; details: { problems: Problem[] } };
    };
    expect(body.error.code).toBe('INVALID_DATASOURCE');
    return body.error.details.problems;
  };
  const call = (who: TokenClaims, tool: string, args: unknown) =>
    gw.request(`/v1/tools/${tool}/call`, { method: 'POST', as: who, json: { arguments: args } });

  describe('registration refuses a login that is not read-only, saying why', () => {
    it('a superuser', async () => {
      const problems = await refusal(await putSource(root, 'wh', source(wh.adminUrl)));
      expect(problems.map((p) => p.rule)).toContain('superuser');
      expect(problems[0].message).toMatch(/superuser/);
    });

    it('a login with INSERT (or UPDATE, DELETE, TRUNCATE) on any table it reaches', async () => {
      const writer = await wh.login((r) => [
        `GRANT USAGE ON SCHEMA sales TO ${r}`,
        `GRANT SELECT ON sales.orders TO ${r}`,
        `GRANT INSERT ON sales.payroll TO ${r}`,
      ]);
      const problems = await refusal(await putSource(root, 'wh', source(writer.url)));
      expect(problems).toEqual([
        expect.objectContaining({
          rule: 'writable',
          message: expect.stringMatching(/sales\.payroll/),
        }),
      ]);
      const truncater = await wh.login((r) => [
        `GRANT USAGE ON SCHEMA sales TO ${r}`,
        `GRANT SELECT, TRUNCATE ON sales.orders TO ${r}`,
      ]);
      expect((await refusal(await putSource(root, 'wh', source(truncater.url))))[0].rule).toBe(
        'writable',
      );
    });

    it('a login that owns a listed table, or may CREATE in the schema', async () => {
      const owner = await wh.login((r) => [
        `GRANT USAGE ON SCHEMA sales TO ${r}`,
        `CREATE TABLE sales.owned (id int)`,
        `ALTER TABLE sales.owned OWNER TO ${r}`,
      ]);
      const rules = (await refusal(await putSource(root, 'wh', source(owner.url, ['owned'])))).map(
        (p) => p.rule,
      );
      expect(rules).toContain('owner');
      const creator = await wh.login((r) => [
        `GRANT USAGE, CREATE ON SCHEMA sales TO ${r}`,
        `GRANT SELECT ON sales.orders TO ${r}`,
      ]);
      const problems = await refusal(await putSource(root, 'wh', source(creator.url)));
      expect(problems).toEqual([
        expect.objectContaining({
          rule: 'writable',
          message: expect.stringMatching(/CREATE in schema sales/),
        }),
      ]);
    });

    it('a missing table, and an unreachable server', async () => {
      const missing = await refusal(
        await putSource(root, 'wh', source(reader.url, ['orders', 'nope'])),
      );
      expect(missing).toEqual([
        expect.objectContaining({
          rule: 'missing',
          message: expect.stringMatching(/no table nope/),
        }),
      ]);
      const closed = new URL(reader.url);
      closed.port = '1'; // nothing listens on port 1
      const down = await refusal(await putSource(root, 'wh', source(closed.toString())));
      expect(down).toEqual([
        expect.objectContaining({ rule: 'unreachable', message: expect.stringMatching(/refused/) }),
      ]);
    });

    it('saves nothing of a refused source, and never echoes its password', async () => {
      const writer = await wh.login((r) => [`GRANT INSERT ON sales.orders TO ${r}`]);
      const res = await putSource(root, 'wh', source(writer.url));
      const text = await res.text();
      expect(res.status).toBe(422);
      expect(text).not.toContain(new URL(writer.url).password);
      const list = (await (await gw.request('/v1/admin/datasources', { as: root })).json()) as {
        datasources: unknown[];
      };
      expect(list.datasources).toEqual([]);
    });
  });

  describe('a read-only login', () => {
    beforeAll(async () => {
      const res = await putSource(root, 'wh', { ...source(reader.url), pool_max: 3 });
      expect(res.status).toBe(201);
    });

    it('is registered (201) and shown without its password, with health', async () => {
      const res = await gw.request('/v1/admin/datasources/wh', { as: root });
      expect(res.status).toBe(200);
      const text = await res.text();
      const password = new URL(reader.url).password;
      expect(text).not.toContain(password);
      const view = JSON.parse(text) as {
        url: string;
        schema: string;
        tables: string[];
        pool_max: number;
        health: { reachable: boolean; server_version: string; latency_ms: number };
      };
      expect(view.url).toBe(withLogin(reader.url, reader.role, ''));
      expect(view).toMatchObject({ schema: 'sales', tables: ['orders'], pool_max: 3 });
      expect(view.health.reachable).toBe(true);
      expect(view.health.server_version).toMatch(/^\d+/);
      expect(view.health.latency_ms).toBeGreaterThanOrEqual(0);
    });

    it("keeps the password only encrypted in the gateway's tables", async () => {
      const password = new URL(reader.url).password;
      const { rows } = await sql<{ row: string }>`SELECT t::text AS row
        FROM gateway.tenant_datasources t WHERE tenant_id = 'acme'`.execute(gw.database.handle.db);
      expect(rows).toHaveLength(1);
      expect(rows[0].row).not.toContain(password);
      expect(rows[0].row).toContain('v1.');
    });

    it('runs a report on the source: rows from the warehouse, the guard on its tables', async () => {
      const put = await gw.request('/v1/admin/reports/wh_orders', {
        method: 'PUT',
        as: root,
        json: REPORT,
      });
      expect(put.status).toBe(201);
      expect(((await put.json()) as { report: { datasource: string } }).report.datasource).toBe(
        'wh',
      );
      const res = await call(alice, 'query_report_wh_orders', { region: 'north', page_size: 5 });
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        is_error: boolean;
        result: { rows: Array<{ order_id: number; total_amount: number }>; has_more: boolean };
      };
      expect(JSON.stringify(body)).toMatch(/^\{"tool":"query_report_wh_orders","is_error":false/);
      expect(body.result.rows[0]).toEqual({ order_id: 2, total_amount: 7002 });
      expect(body.result.rows).toHaveLength(5);
      expect(body.result.has_more).toBe(true);
      // a table of the source's server that is not registered: refused by the guard
      const payroll = await gw.request('/v1/admin/reports/wh_payroll', {
        method: 'PUT',
        as: root,
        json: { ...REPORT, sql_template: 'SELECT p.id, p.salary FROM payroll p', filters: [] },
      });
      expect(payroll.status).toBe(422);
      // the gateway schema's tables are not the source's either
      const customers = await gw.request('/v1/admin/reports/wh_customers', {
        method: 'PUT',
        as: root,
        json: { ...REPORT, sql_template: 'SELECT c.id FROM customers c', filters: [] },
      });
      expect(customers.status).toBe(422);
    });

    it('refuses a report naming a source the tenant has not registered', async () => {
      const res = await gw.request('/v1/admin/reports/wh_other', {
        method: 'PUT',
        as: root,
        json: { ...REPORT, datasource: 'elsewhere' },
      });
      expect(res.status).toBe(422);
      expect(await res.text()).toMatch(/no data source named \\?"elsewhere\\?"/);
    });

    it('refuses DELETE while a report uses the source (409)', async () => {
      const res = await gw.request('/v1/admin/datasources/wh', { method: 'DELETE', as: root });
      expect(res.status).toBe(409);
      const body = (await res.json()) as {
        error: { code: string; details: { reports: string[] } };
      };
      expect(body.error.code).toBe('DATASOURCE_IN_USE');
      expect(body.error.details.reports).toEqual(['wh_orders']);
    });

    it('rotates the password with a PUT: calls go on with the new one', async () => {
      const password = randomBytes(12).toString('hex');
      await wh.run(`ALTER ROLE "${reader.role}" PASSWORD '${password}'`);
      const rotated = withLogin(reader.url, reader.role, password);
      expect((await putSource(root, 'wh', { ...source(rotated), pool_max: 3 })).status).toBe(200);
      const { rows } = await sql<{ row: string }>`SELECT t::text AS row
        FROM gateway.tenant_datasources t WHERE tenant_id = 'acme'`.execute(gw.database.handle.db);
      expect(rows[0].row).not.toContain(password);
      const res = await call(alice, 'query_report_wh_orders', { region: 'south' });
      const body = (await res.json()) as { is_error: boolean; result: { rows: unknown[] } };
      expect(JSON.stringify(body)).toMatch(/^\{"tool":"query_report_wh_orders","is_error":false/);
      expect(body.result.rows[0]).toEqual({ order_id: 1, total_amount: 7001 });
      reader = { ...reader, url: rotated };
    });
  });

  describe('another tenant sees nothing of the source', () => {
    it('not in its list, not by name, not for its reports, not to delete', async () => {
      const list = await gw.request('/v1/admin/datasources', { as: groot });
      expect(list.status).toBe(200);
      expect(await list.json()).toEqual({ datasources: [] });
      const get = await gw.request('/v1/admin/datasources/wh', { as: groot });
      expect(get.status).toBe(404);
      const report = await gw.request('/v1/admin/reports/stolen', {
        method: 'PUT',
        as: groot,
        json: REPORT,
      });
      expect(report.status).toBe(422);
      expect(await report.text()).toMatch(/no data source named/);
      const del = await gw.request('/v1/admin/datasources/wh', { method: 'DELETE', as: groot });
      expect(del.status).toBe(404);
      // and its users cannot call the acme report
      const callRes = await call(
        { tenant: 'globex', user: 'gina', roles: ['admin'] },
        'query_report_wh_orders',
        { region: 'north' },
      );
      expect(callRes.status).toBe(404);
    });

    it('a non-admin of the tenant itself cannot read the sources', async () => {
      const res = await gw.request('/v1/admin/datasources', { as: alice });
      expect(res.status).toBe(403);
    });
  });
});
