import { initSqlParser } from '@app/templates';
import { Logger } from '@nestjs/common';
import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import pg from 'pg';
import { createTestDatabase } from '../../../../test/support/test-database';
import type { TestDatabase } from '../../../../test/support/test-database';
import { CatalogRepository } from './load/catalog.repository';
import type { CatalogService } from '../listing/catalog.service';
import type { Principal } from '../access/principal';
import { standaloneCatalog } from '../testing';
import type { TenantCatalog } from './model/tenant-catalog';

const admin: Principal = { tenantId: 'acme', userId: 'root', roles: ['admin'], claims: {} };

/** What a user of the catalog can observe: every served tool's definition, every status. */
async function observable(service: CatalogService, tenantId = 'acme') {
  const { catalog, tools } = await service.tenantTools(tenantId);
  const ids = [...catalog.reports.storedReports()].map((s) => s.metadata.id).sort();
  return {
    tools: tools
      .map((t) => JSON.stringify(t.definition))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    statuses: ids.map((id) => [id, catalog.reportVersion(id), catalog.reportStatus(id)]),
  };
}

describe('incremental catalog refresh on real Postgres', () => {
  let db: TestDatabase;
  let catalog: CatalogService;
  let repository: CatalogRepository;

  beforeAll(async () => {
    await initSqlParser();
    db = await createTestDatabase();
    // staleAfterMs 0: every read checks the version in Postgres, as after a NOTIFY
    catalog = standaloneCatalog(db.handle, { staleAfterMs: 0 });
    repository = new CatalogRepository(db.handle);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await db.drop();
  });

  const run = <T>(query: RawBuilder<T>) => query.execute(db.handle.db);
  const current = (): Promise<TenantCatalog> => catalog.catalog('acme');

  it('reuses every report after an access-only change, and re-reads only the report that changed', async () => {
    const first = await current();
    await run(
      sql`UPDATE gateway.roles SET description = description || '.' WHERE tenant_id = 'acme' AND name = 'analyst'`,
    );
    const afterAccess = await current();
    expect(afterAccess.version).toBeGreaterThan(first.version);
    expect(afterAccess.reports).toBe(first.reports);

    await run(sql`UPDATE gateway.reports SET description = 'Revenue per region, rewritten'
                  WHERE tenant_id = 'acme' AND id = 'sales_by_region'`);
    const changes = await repository.changesSince('acme', afterAccess.version);
    expect(changes.changed.map((r) => r.metadata.id)).toEqual(['sales_by_region']);
    expect(changes.removed).toEqual([]);
    const afterEdit = await current();
    expect(afterEdit.reports).not.toBe(afterAccess.reports);
    expect(afterEdit.reports.verdict('top_customers')).toBe(
      afterAccess.reports.verdict('top_customers'),
    );
    expect(afterEdit.reportVersion('sales_by_region')).toBe(
      (afterAccess.reportVersion('sales_by_region') ?? 0) + 1,
    );
    const tool = (await catalog.resolve(admin, 'query_report_sales_by_region')).tool;
    expect(tool.definition.description).toContain('Revenue per region, rewritten');
  });

  it('ends up where a full read from Postgres ends up, through edits, removals, re-adds and moves', async () => {
    await current();
    const add = (id: string, category: string, description = 'added by SQL') =>
      sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
          VALUES ('acme', ${id}, ${id}, ${description}, 'SELECT count(*) AS n FROM orders', ${category})`;
    await run(add('extra_one', 'sales'));
    await run(add('extra_two', 'finance'));
    await current();
    // a filter edit counts as an edit of its report
    await run(sql`UPDATE gateway.report_filters SET description = 'Which region, exactly'
                  WHERE tenant_id = 'acme' AND report_id = 'sales_by_region' AND name = 'region'`);
    await current();
    // removed, and removed then added again in one transaction
    await run(sql`DELETE FROM gateway.reports WHERE tenant_id = 'acme' AND id = 'extra_one'`);
    await db.handle.db.transaction().execute(async (trx) => {
      await sql`DELETE FROM gateway.reports WHERE tenant_id = 'acme' AND id = 'extra_two'`.execute(
        trx,
      );
      // the same id at version 1 again, but another report: nothing of the first may be reused
      await add('extra_two', 'inventory', 'added again, differently').execute(trx);
    });
    await current();
    // renamed in place: the old id is gone, the new one is there
    await run(add('extra_three', 'sales'));
    await current();
    await run(
      sql`UPDATE gateway.reports SET id = 'extra_renamed' WHERE tenant_id = 'acme' AND id = 'extra_three'`,
    );
    // moved to another category, disabled, and broken
    await run(
      sql`UPDATE gateway.reports SET category = 'finance' WHERE tenant_id = 'acme' AND id = 'top_customers'`,
    );
    await run(
      sql`UPDATE gateway.reports SET status = 'disabled' WHERE tenant_id = 'acme' AND id = 'low_stock'`,
    );
    await run(sql`UPDATE gateway.reports SET sql_template = 'SELECT * FROM pg_authid'
                  WHERE tenant_id = 'acme' AND id = 'order_lookup'`);

    const refreshed = await observable(catalog);
    const fullRead = await observable(standaloneCatalog(db.handle, { staleAfterMs: 0 }));
    expect(refreshed).toEqual(fullRead);
    const names = refreshed.tools.map((t) => (JSON.parse(t) as { name: string }).name);
    expect(names).not.toContain('query_report_extra_one');
    expect(names).toContain('query_report_extra_two');
    expect(names).not.toContain('query_report_extra_three');
    expect(names).toContain('query_report_extra_renamed');
    const again = (await catalog.resolve(admin, 'query_report_extra_two')).tool;
    expect(again.definition.description).toContain('added again, differently');
    expect(names).not.toContain('query_report_low_stock');
    expect(names).not.toContain('query_report_order_lookup');
    // a finance-only user now reaches the moved report through its new category
    const finance: Principal = { tenantId: 'acme', userId: 'fin', roles: ['finance'], claims: {} };
    const visible = (await catalog.visibleSet(finance)).tools.map((t) => t.definition.name);
    expect(visible).toContain('query_report_top_customers');
    expect(visible).not.toContain('query_report_extra_two');
  });

  it('claims versions in commit order, so a change committed after a refresh is never missed', async () => {
    await current();
    const a = new pg.Client({ connectionString: db.url });
    const b = new pg.Client({ connectionString: db.url });
    await Promise.all([a.connect(), b.connect()]);
    try {
      const insert = (id: string) =>
        `INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
         VALUES ('acme', '${id}', '${id}', 'concurrent', 'SELECT count(*) AS n FROM orders', 'sales')`;
      await a.query('BEGIN');
      await a.query(insert('first_writer'));
      await b.query('BEGIN');
      // b's version claim waits for a's lock on the tenant row
      const bInserted = b.query(insert('second_writer'));
      await a.query('COMMIT');
      await bInserted;
      const seen = await current();
      expect(seen.reportVersion('first_writer')).toBe(1);
      expect(seen.reportVersion('second_writer')).toBeUndefined();
      await b.query('COMMIT');
      const after = await current();
      expect(after.reportVersion('second_writer')).toBe(1);
      expect(after.reports.tool('query_report_second_writer')).toBeDefined();
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  it("never reads another tenant's changes", async () => {
    const acme = await current();
    await run(
      sql`UPDATE gateway.reports SET description = 'globex only' WHERE tenant_id = 'globex' AND id = 'sales_by_region'`,
    );
    await run(sql`DELETE FROM gateway.reports WHERE tenant_id = 'globex' AND id = 'low_stock'`);
    await run(
      sql`UPDATE gateway.roles SET description = description || '.' WHERE tenant_id = 'acme' AND name = 'analyst'`,
    );
    expect(await repository.changesSince('acme', acme.version)).toEqual({
      changed: [],
      removed: [],
    });
    const globexSince = await repository.changesSince('globex', 0);
    expect(globexSince.removed).toEqual(['low_stock']);
    const after = await current();
    expect(after.reports).toBe(acme.reports);
    const tool = (await catalog.resolve(admin, 'query_report_sales_by_region')).tool;
    expect(tool.definition.description).not.toContain('globex only');
  });

  it('claims one version per transaction, however many rows it changes', async () => {
    const version = async () => (await repository.catalogStamp('acme'))?.version ?? Number.NaN;
    const before = await version();
    await db.handle.db.transaction().execute(async (trx) => {
      // an unrelated edit of the tenant row does not count as this transaction's claim
      await sql`UPDATE gateway.tenants SET name = name WHERE id = 'acme'`.execute(trx);
      await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
                SELECT 'acme', 'bulk_' || i, 'bulk ' || i, 'bulk', 'SELECT count(*) AS n FROM orders', 'bulk'
                FROM generate_series(1, 200) i`.execute(trx);
      await sql`INSERT INTO gateway.report_fields (tenant_id, report_id, name, type)
                SELECT 'acme', 'bulk_' || i, 'n', 'integer' FROM generate_series(1, 200) i`.execute(
        trx,
      );
    });
    const after = await version();
    expect(after).toBe(before + 1);
    const changes = await repository.changesSince('acme', before);
    expect(changes.changed).toHaveLength(200);
    // each report written once in the transaction, its field included: version 1 (#39; it was
    // 2, the field row's touch counting as a second change)
    expect(new Set(changes.changed.map((r) => r.metadata.version))).toEqual(new Set([1]));
    expect((await current()).reports.tool('query_report_bulk_200')).toBeDefined();

    // a claim rolled back with its savepoint is gone; the next change claims again
    await db.handle.db.transaction().execute(async (trx) => {
      await sql`SAVEPOINT s`.execute(trx);
      await sql`UPDATE gateway.reports SET description = 'rolled back' WHERE tenant_id = 'acme' AND id = 'bulk_1'`.execute(
        trx,
      );
      await sql`ROLLBACK TO SAVEPOINT s`.execute(trx);
      await sql`UPDATE gateway.reports SET description = 'kept' WHERE tenant_id = 'acme' AND id = 'bulk_2'`.execute(
        trx,
      );
    });
    expect(await version()).toBe(after + 1);
    expect(
      (await repository.changesSince('acme', after)).changed.map((r) => r.metadata.id),
    ).toEqual(['bulk_2']);
  });

  it('reads a tenant deleted and created again in full: its versions start over', async () => {
    const addTenant = (report: string) =>
      db.handle.db.transaction().execute(async (trx) => {
        await sql`DELETE FROM gateway.tenants WHERE id = 'phoenix'`.execute(trx);
        await sql`INSERT INTO gateway.tenants (id, name) VALUES ('phoenix', 'Phoenix')`.execute(
          trx,
        );
        await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
                  VALUES ('phoenix', ${report}, ${report}, 'x', 'SELECT 1 AS one', 'misc')`.execute(
          trx,
        );
      });
    await addTenant('first_life');
    // many changes, so the first tenant's version is well past where the second one starts
    for (let i = 0; i < 5; i++)
      await run(
        sql`UPDATE gateway.reports SET description = ${`edit ${i}`} WHERE tenant_id = 'phoenix'`,
      );
    const first = await catalog.catalog('phoenix');
    expect([...first.reports.storedReports()].map((r) => r.metadata.id)).toEqual(['first_life']);
    await addTenant('second_life');
    const second = await catalog.catalog('phoenix');
    expect(second.version).toBeLessThan(first.version);
    expect([...second.reports.storedReports()].map((r) => r.metadata.id)).toEqual(['second_life']);
    // and gone is gone: the next read says so, then a new tenant of that id is read in full
    await run(sql`DELETE FROM gateway.tenants WHERE id = 'phoenix'`);
    await expect(catalog.catalog('phoenix')).rejects.toMatchObject({ code: 'TENANT_NOT_FOUND' });
    await addTenant('third_life');
    const third = await catalog.catalog('phoenix');
    expect([...third.reports.storedReports()].map((r) => r.metadata.id)).toEqual(['third_life']);
  });

  it('takes its tombstones along when a tenant is deleted', async () => {
    await run(sql`INSERT INTO gateway.tenants (id, name) VALUES ('shortlived', 'Short-lived')`);
    await run(sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
                  VALUES ('shortlived', 'a', 'a', 'x', 'SELECT 1 AS one', 'misc'),
                         ('shortlived', 'b', 'b', 'x', 'SELECT 1 AS one', 'misc')`);
    await run(sql`DELETE FROM gateway.reports WHERE tenant_id = 'shortlived' AND id = 'a'`);
    expect((await repository.changesSince('shortlived', 0)).removed).toEqual(['a']);
    await run(sql`DELETE FROM gateway.tenants WHERE id = 'shortlived'`);
    const { rows } = await run(
      sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM gateway.report_removals WHERE tenant_id = 'shortlived'`,
    );
    expect(rows[0].n).toBe(0);
  });
});
