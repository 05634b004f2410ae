import { sql } from 'kysely';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const groot: TokenClaims = { tenant: 'globex', user: 'groot', roles: ['admin'] };

const REPORT = {
  name: 'Big orders',
  description: 'Orders above an amount, newest first.',
  sql_template:
    'SELECT o.id AS order_id, o.total_amount FROM orders o WHERE o.total_amount >= :min_amount ORDER BY o.id DESC',
  category: 'sales',
  status: 'active',
  filters: [
    {
      name: 'min_amount',
      type: 'number',
      description: 'smallest total in USD',
      required: true,
      enum_values: null,
      default: null,
    },
  ],
  fields: [
    { name: 'order_id', type: 'integer', description: 'order number' },
    { name: 'total_amount', type: 'number', description: 'total in USD' },
  ],
};

describe('admin reports API (e2e, real Postgres)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  const put = (who: TokenClaims, id: string, body: unknown) =>
    gw.request(`/v1/admin/reports/${id}`, { method: 'PUT', as: who, json: body });
  const catalogVersion = async () => {
    const { rows } = await sql<{
      v: string;
    }>`SELECT catalog_version AS v FROM gateway.tenants WHERE id = 'acme'`.execute(
      gw.database.handle.db,
    );
    return rows[0].v;
  };
  const toolNames = async (who: TokenClaims) =>
    (
      (await (await gw.request('/v1/tools', { as: who })).json()) as {
        tools: Array<{ function: { name: string } }>;
      }
    ).tools.map((t) => t.function.name);

  it('creates a report (201) that is served at once, and GET returns the document PUT accepted', async () => {
    const created = await put(root, 'big_orders', REPORT);
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({
      report: { id: 'big_orders', ...REPORT },
      status: { served: true, version: expect.any(Number) },
    });
    expect(await toolNames(alice)).toContain('query_report_big_orders');
    const fetched = (await (
      await gw.request('/v1/admin/reports/big_orders', { as: root })
    ).json()) as { report: typeof REPORT };
    // fetch, edit, put back
    const edited = { ...fetched.report, description: 'Orders above an amount.' };
    const replaced = await put(root, 'big_orders', edited);
    expect(replaced.status).toBe(200);
    expect(
      ((await replaced.json()) as { report: { description: string } }).report.description,
    ).toBe('Orders above an amount.');
  });

  it.each([
    [
      'a template the guard rejects',
      { ...REPORT, sql_template: 'SELECT rolname FROM pg_roles WHERE :min_amount > 0' },
      'pg_roles',
    ],
    [
      'a parameter no filter declares',
      { ...REPORT, sql_template: 'SELECT 1 AS one FROM orders WHERE total_amount > :amount' },
      ':amount is not a declared filter parameter',
    ],
    [
      'a declared filter the template never uses',
      { ...REPORT, sql_template: 'SELECT count(*) AS n FROM orders' },
      'min_amount',
    ],
    [
      'an unknown filter type',
      { ...REPORT, filters: [{ name: 'min_amount', type: 'money' }] },
      'filters/0/type must be equal to one of the allowed values',
    ],
    [
      'a missing description',
      { ...REPORT, description: undefined },
      "must have required property 'description'",
    ],
  ])('refuses %s with 422 and changes nothing', async (_, body, reason) => {
    const before = await catalogVersion();
    const original = await (await gw.request('/v1/admin/reports/big_orders', { as: root })).text();
    const res = await put(root, 'big_orders', body);
    expect(res.status).toBe(422);
    const error = (
      (await res.json()) as {
        error: { code: string; message: string; details: { problems: Array<{ message: string }> } };
      }
    ).error;
    expect(error.code).toBe('INVALID_REPORT');
    expect(error.details.problems.map((p) => p.message).join(' ')).toContain(reason);
    expect(await catalogVersion()).toBe(before);
    expect(await (await gw.request('/v1/admin/reports/big_orders', { as: root })).text()).toBe(
      original,
    );
  });

  it('disables and enables a report; the list follows', async () => {
    const disabled = await gw.request('/v1/admin/reports/big_orders/disable', {
      method: 'POST',
      as: root,
    });
    expect(
      ((await disabled.json()) as { status: { served: boolean; reason: string } }).status,
    ).toMatchObject({ served: false, reason: 'disabled' });
    expect(await toolNames(alice)).not.toContain('query_report_big_orders');
    await gw.request('/v1/admin/reports/big_orders/enable', { method: 'POST', as: root });
    expect(await toolNames(alice)).toContain('query_report_big_orders');
  });

  it('lists every report with its status, including one inserted by SQL that is not served and why', async () => {
    await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
              VALUES ('acme', 'broken', 'Broken', 'bad template', 'DELETE FROM orders', 'sales')`.execute(
      gw.database.handle.db,
    );
    const res = await gw.request('/v1/admin/reports', { as: root });
    const { reports } = (await res.json()) as {
      reports: Array<{
        id: string;
        served: boolean;
        reason?: string;
        problems?: Array<{ rule: string }>;
      }>;
    };
    expect(reports.find((r) => r.id === 'sales_by_region')).toMatchObject({ served: true });
    expect(reports.find((r) => r.id === 'broken')).toMatchObject({
      served: false,
      reason: 'the SQL template was rejected',
      problems: [{ rule: 'select_only' }],
    });
  });

  it('deletes a report (204), then 404', async () => {
    expect(
      (await gw.request('/v1/admin/reports/big_orders', { method: 'DELETE', as: root })).status,
    ).toBe(204);
    expect(await toolNames(alice)).not.toContain('query_report_big_orders');
    expect(
      (await gw.request('/v1/admin/reports/big_orders', { method: 'DELETE', as: root })).status,
    ).toBe(404);
  });

  it('refuses non-admins with 403', async () => {
    expect((await gw.request('/v1/admin/reports', { as: alice })).status).toBe(403);
    expect((await put(alice, 'x_report', REPORT)).status).toBe(403);
  });

  it("isolates tenants: a globex admin can neither read nor change acme's reports", async () => {
    expect((await gw.request('/v1/admin/reports/sales_by_region', { as: groot })).status).toBe(200);
    await put(root, 'acme_only', REPORT);
    expect((await gw.request('/v1/admin/reports/acme_only', { as: groot })).status).toBe(404);
    expect(
      (await gw.request('/v1/admin/reports/acme_only', { method: 'DELETE', as: groot })).status,
    ).toBe(404);
    expect(
      (await gw.request('/v1/admin/reports/acme_only/disable', { method: 'POST', as: groot }))
        .status,
    ).toBe(404);
    const globexList = (await (await gw.request('/v1/admin/reports', { as: groot })).json()) as {
      reports: Array<{ id: string }>;
    };
    expect(globexList.reports.map((r) => r.id)).not.toContain('acme_only');
    // a PUT by globex's admin creates globex's own report, never touches acme's
    expect((await put(groot, 'acme_only', { ...REPORT, name: 'globex copy' })).status).toBe(201);
    const acme = (await (await gw.request('/v1/admin/reports/acme_only', { as: root })).json()) as {
      report: { name: string };
    };
    expect(acme.report.name).toBe('Big orders');
  });

  it('answers a body that is not JSON with 400, not 500', async () => {
    const res = await gw.request('/v1/admin/reports/x', {
      method: 'PUT',
      as: root,
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(res.status).toBe(400);
  });
});
