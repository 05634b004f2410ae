import { initSqlParser } from '@app/templates';
import { Logger } from '@nestjs/common';
import { sql } from 'kysely';
import { createTestDatabase } from '../../../../test/support/test-database';
import type { TestDatabase } from '../../../../test/support/test-database';
import type { CatalogService } from '../listing/catalog.service';
import { standaloneCatalog } from '../testing';
import type { Principal } from '../access/principal';
import { accessSubject } from '../listing/served-tool';

const admin: Principal = { tenantId: 'acme', userId: 'root', roles: ['admin'], claims: {} };

describe('CatalogService on real Postgres', () => {
  let db: TestDatabase;
  let catalog: CatalogService;

  beforeAll(async () => {
    await initSqlParser();
    db = await createTestDatabase();
    catalog = standaloneCatalog(db.handle, { staleAfterMs: 0 });
  });
  afterAll(() => db.drop());

  async function insertReport(id: string, template: string): Promise<void> {
    await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
              VALUES ('acme', ${id}, ${id}, 'inserted by plain SQL', ${template}, 'sales')`.execute(
      db.handle.db,
    );
  }

  async function names(principal: Principal): Promise<string[]> {
    return (await catalog.visibleSet(principal)).tools.map((t) => t.definition.name);
  }

  it('does not serve a report inserted by SQL whose template the guard rejects; the rest stays served', async () => {
    const before = await names(admin);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    await insertReport('role_dump', "SELECT rolname FROM pg_roles WHERE rolname <> ''");
    await insertReport('sleepy', 'SELECT pg_sleep(10) AS nap FROM orders');
    const after = await names(admin);
    expect(after).toEqual(before);
    const tenant = await catalog.catalog('acme');
    expect(tenant.reportStatus('role_dump')).toEqual({
      served: false,
      reason: 'the SQL template was rejected',
      problems: [
        expect.objectContaining({ rule: 'relation', message: expect.stringContaining('pg_roles') }),
      ],
    });
    expect(tenant.reportStatus('sleepy')).toMatchObject({
      served: false,
      problems: [expect.objectContaining({ rule: 'function' })],
    });
    // logged once per report version, however often the catalog is read
    await names(admin);
    await names(admin);
    const logged = warn.mock.calls
      .map((c) => String(c[0]))
      .filter((m) => m.includes('acme/role_dump'));
    expect(logged).toHaveLength(1);
    warn.mockRestore();
  });

  it('serves a good report inserted by SQL as soon as it commits', async () => {
    await insertReport('order_count', 'SELECT count(*) AS orders FROM orders');
    expect(await names(admin)).toContain('query_report_order_count');
  });

  it('refuses a report with a parameter that no filter declares', async () => {
    await insertReport('undeclared', 'SELECT count(*) AS n FROM orders WHERE region = :region');
    const status = (await catalog.catalog('acme')).reportStatus('undeclared');
    expect(status).toMatchObject({ served: false, reason: 'invalid metadata' });
    expect(JSON.stringify(status)).toContain(':region is not a declared filter parameter');
  });

  it('builds visible sets from the index exactly as a scan of the whole catalog would', async () => {
    await sql`INSERT INTO gateway.user_grants (tenant_id, user_id, report_id, effect) VALUES ('acme', 'dora', 'revenue_by_month', 'allow'), ('acme', 'dora', 'low_stock', 'deny')`.execute(
      db.handle.db,
    );
    const principals: Principal[] = [
      admin,
      { tenantId: 'acme', userId: 'alice', roles: ['analyst'], claims: {} },
      { tenantId: 'acme', userId: 'dora', roles: ['analyst'], claims: {} },
      { tenantId: 'acme', userId: 'rita', roles: ['sales_rep'], claims: { region: 'west' } },
      { tenantId: 'acme', userId: 'tom', roles: ['sales_rep', 'finance'], claims: {} },
      { tenantId: 'acme', userId: 'nobody', roles: [], claims: {} },
    ];
    const { catalog: tenant, tools } = await catalog.tenantTools('acme');
    for (const principal of principals) {
      for (const context of [undefined, 'SALES', 'FINANCE']) {
        const roles = tenant.access.effectiveRoles(principal);
        const scanned = tools
          .filter((t) => tenant.access.decide(principal, roles, accessSubject(t)).allowed)
          .filter(
            (t) => context === undefined || tenant.access.inContext(context, accessSubject(t)),
          )
          .filter((t) => t.kind !== 'report' || t.report.isBindableFor(principal))
          .map((t) => t.definition.name)
          .sort();
        const indexed = (await catalog.visibleSet(principal, context)).tools.map(
          (t) => t.definition.name,
        );
        expect(indexed).toEqual(scanned);
      }
    }
    const dora = (await catalog.visibleSet(principals[2])).tools.map((t) => t.definition.name);
    expect(dora).toContain('query_report_revenue_by_month');
    expect(dora).not.toContain('query_report_low_stock');
  });
});
