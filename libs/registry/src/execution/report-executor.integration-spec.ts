import { connectPostgres } from '@app/db';
import { initSqlParser, pagedQuery, ReportTool } from '@app/templates';
import { createTestDatabase } from '../../../../test/support/test-database';
import type { TestDatabase } from '../../../../test/support/test-database';
import type { CatalogService } from '../listing/catalog.service';
import { standaloneCatalog } from '../testing';
import { DEFAULT_REGISTRY_OPTIONS } from '../tokens';
import type { Principal } from '../access/principal';
import { ReportExecutor } from './report-executor';

async function reportTool(catalog: CatalogService, principal: Principal, name: string) {
  const { catalog: tenant, tool } = await catalog.resolve(principal, name);
  if (tool.kind !== 'report') throw new Error(`${name} is not a report`);
  return { tenant, tool: tool.report };
}

const ACME = { id: 'acme', dataSchema: 'tenant_acme' };
const GLOBEX = { id: 'globex', dataSchema: 'tenant_globex' };
const alice: Principal = { tenantId: 'acme', userId: 'alice', roles: ['analyst'], claims: {} };

describe('ReportExecutor on real Postgres', () => {
  let db: TestDatabase;
  let catalog: CatalogService;
  let executor: ReportExecutor;

  beforeAll(async () => {
    await initSqlParser();
    db = await createTestDatabase();
    catalog = standaloneCatalog(db.handle, { staleAfterMs: 0 });
    executor = new ReportExecutor(db.handle, {
      ...DEFAULT_REGISTRY_OPTIONS,
      statementTimeoutMs: 500,
      maxResultBytes: 4096,
    });
  });
  afterAll(() => db.drop());

  it('renders sales_by_region to the expected SQL and parameters, then runs it', async () => {
    const { tool } = await reportTool(catalog, alice, 'query_report_sales_by_region');
    const checked = tool.arguments.check({ region: 'west', order_date: { start: '2025-06-01' } });
    if (!checked.ok) throw new Error(checked.message);
    const paged = pagedQuery(tool.bound);
    const values = [...tool.parameterValues(checked.args, alice), ...paged.pageValues(1, 20)];
    expect(paged.text).toBe(`SELECT * FROM (
SELECT o.region, count(*) AS order_count, sum(o.total_amount) AS total_amount
FROM orders o
WHERE ($1::text IS NULL OR o.region = $1::text)
  AND ($2::date IS NULL OR o.order_date >= $2::date)
  AND ($3::date IS NULL OR o.order_date <= $3::date)
GROUP BY o.region
ORDER BY o.region
) AS report_rows LIMIT $4 OFFSET $5`);
    expect(values).toEqual(['west', '2025-06-01', null, 21, 0]);
    const result = await executor.runReadOnly(ACME, paged.text, values);
    const direct = await db.handle.withSession((s) =>
      s.query(
        "SELECT count(*)::int AS n FROM tenant_acme.orders WHERE region = 'west' AND order_date >= '2025-06-01'",
      ),
    );
    expect(result.rows).toEqual([
      { region: 'west', order_count: direct.rows[0].n, total_amount: expect.any(Number) },
    ]);
  });

  it('runs in a read-only transaction: a write is refused by the database', async () => {
    await expect(
      executor.runReadOnly(ACME, 'SELECT 1 FROM (SELECT 1) x; ', []),
    ).resolves.toBeDefined();
    await expect(
      executor.runReadOnly(
        ACME,
        'WITH d AS (DELETE FROM orders RETURNING id) SELECT count(*) FROM d',
        [],
      ),
    ).rejects.toThrow(/read-only transaction/);
    const { rows } = await db.handle.withSession((s) =>
      s.query('SELECT count(*)::int AS n FROM tenant_acme.orders'),
    );
    expect(rows[0].n).toBe(50_000);
  });

  it("pins search_path to the caller's tenant schema", async () => {
    const acme = await executor.runReadOnly(ACME, 'SELECT count(*)::int AS n FROM orders', []);
    const globex = await executor.runReadOnly(GLOBEX, 'SELECT count(*)::int AS n FROM orders', []);
    expect(acme.rows[0].n).toBe(50_000);
    expect(globex.rows[0].n).toBe(30_000);
  });

  it('stops a slow query at the statement timeout and tells the model what to do', async () => {
    const slow = new ReportTool({
      ...(await reportTool(catalog, alice, 'query_report_sales_by_region')).tool.report,
      id: 'slow',
      sqlTemplate:
        'SELECT count(*) AS n FROM orders a, orders b WHERE (:region IS NULL OR a.region = :region) AND (:order_date_start IS NULL OR :order_date_end IS NULL OR a.id > 0)',
    });
    const outcome = await executor.call(await catalog.catalog('acme'), slow, {}, alice);
    expect(outcome).toEqual({
      tool: 'query_report_slow',
      is_error: true,
      error: { code: 'TIMEOUT', message: expect.stringContaining('took longer than 0.5 s') },
    });
  });

  it('refuses a page larger than the byte cap with advice', async () => {
    const { tenant, tool } = await reportTool(catalog, alice, 'query_report_top_customers');
    const outcome = await executor.call(tenant, tool, { page_size: 100 }, alice);
    expect(outcome.is_error && outcome.error.code).toBe('RESULT_TOO_LARGE');
    expect(outcome.is_error && outcome.error.message).toMatch(
      /over the 4096-byte limit; ask for a smaller page_size/,
    );
  });

  it('hands the connection back to the pool only after the read-only transaction ended', async () => {
    // one connection: whoever gets it next gets the very session the report ran in
    const single = connectPostgres(db.url, 1);
    try {
      const oneConnection = new ReportExecutor(single, DEFAULT_REGISTRY_OPTIONS);
      const state = () =>
        single.withSession((s) =>
          s.query(
            `SELECT current_user AS who, current_setting('transaction_read_only') AS read_only,
                    current_setting('search_path') AS search_path`,
          ),
        );
      const clean = (await state()).rows[0];
      const ok = await oneConnection.runReadOnly(ACME, 'SELECT count(*)::int AS n FROM orders', []);
      expect(ok.rows[0].n).toBeGreaterThan(0);
      expect((await state()).rows[0]).toEqual(clean);
      await expect(
        oneConnection.runReadOnly(ACME, "UPDATE orders SET status = 'x' WHERE false", []),
      ).rejects.toThrow(/read-only/);
      expect((await state()).rows[0]).toEqual(clean);
      expect(clean.who).not.toMatch(/^gw_reader_/);
    } finally {
      await single.close();
    }
  });
});
