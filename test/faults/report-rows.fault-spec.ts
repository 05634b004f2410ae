import { sql } from 'kysely';
import { callTool, contained, listedTools } from '../support/containment';
import { changeCatalog, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const groot: TokenClaims = { tenant: 'globex', user: 'groot', roles: ['admin'] };

const VALID = {
  name: 'Broken on purpose',
  description: 'A report used to inject faults.',
  category: 'sales',
  status: 'active',
  filters: [],
  fields: [],
};

/** Fault: report rows written by plain SQL that no code path expected. */
describe('faults: unreadable report rows stay contained to their report', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  const insertReport = (id: string, template: string) =>
    changeCatalog(gw, 'acme', (db) =>
      sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
          VALUES ('acme', ${id}, 'Broken', 'A report used to inject faults.', ${template}, 'sales')`.execute(
        db,
      ),
    );

  it('a template with an unterminated quote (libpg-query SyntaxError) leaves the rest of the tenant listed and callable', async () => {
    const before = await listedTools(gw, root);
    const otherTenantBefore = await listedTools(gw, groot);
    await insertReport('unterminated_quote', "SELECT 'abc FROM orders");

    const after = await listedTools(gw, root);
    expect(after).toEqual(before);
    expect(await listedTools(gw, groot)).toEqual(otherTenantBefore);
    const call = await callTool(gw, root, 'query_report_revenue_by_month', { year: 2025 });
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({ is_error: false });
    // the report's status says why it is not served
    const { status, text } = await contained(
      await gw.request('/v1/admin/reports/unterminated_quote', { as: root }),
    );
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({
      status: {
        served: false,
        reason: expect.any(String),
        problems: [expect.objectContaining({ message: expect.stringMatching(/unterminated/i) })],
      },
    });
    // and calling it is the same 404 as any tool the caller cannot use
    const missing = await callTool(gw, root, 'query_report_unterminated_quote');
    expect(missing.status).toBe(404);
  });

  it('the same template through PUT /v1/admin/reports/{id} is a 422 that saves nothing', async () => {
    const res = await gw.request('/v1/admin/reports/unterminated_put', {
      method: 'PUT',
      as: root,
      json: { ...VALID, sql_template: "SELECT 'abc FROM orders" },
    });
    const { status, text } = await contained(res);
    expect(status).toBe(422);
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'INVALID_REPORT' } });
    const { rows } = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM gateway.reports WHERE id = 'unterminated_put'`.execute(
      gw.database.handle.db,
    );
    expect(rows[0].n).toBe(0);
  });

  it('an unterminated dollar quote and a lone comment opener are contained the same way', async () => {
    const before = await listedTools(gw, root);
    await insertReport('unterminated_dollar', 'SELECT $x$abc FROM orders');
    await insertReport('unterminated_comment', 'SELECT 1 /* FROM orders');
    expect(await listedTools(gw, root)).toEqual(before);
  });
});
