import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * A big tenant's first list reads only the reports its caller's grants reach, by category
 * and id (CatalogRepository.loadReports with `{ reach }`, issue 17). Without this index that
 * read scans every row of the reports table (the primary key leads with tenant_id but cannot
 * find a category): 38 ms and 3,754 pages for 5 reports of a 100,000-report tenant, growing
 * with the whole table, not with the tenant (bench/explain-reach.ts, bench/RESULTS.md).
 * Frozen.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE INDEX reports_tenant_category ON gateway.reports (tenant_id, category)`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX gateway.reports_tenant_category`.execute(db);
}
