import type { DatabaseHandle } from '@app/db';
import { sql } from 'kysely';
import { BuiltinTools } from '../listing/builtin-tools';
import { CatalogService } from '../listing/catalog.service';
import { Metrics } from '../metrics';
import { DEFAULT_REGISTRY_OPTIONS } from '../tokens';
import { AdmissionVerdictRepository } from './judge/admission-verdict.repository';
import { CatalogLoader } from './load/catalog-loader';
import type { CatalogReads } from './load/catalog-loader';
import type { PagedReads, SnapshotReads } from './load/catalog-paging';
import { CatalogStore } from './catalog-store';
import { CatalogRepository } from './load/catalog.repository';
import type { ReportSelection, StoredReport } from './model/catalog-records';
import { CatalogChangeFeed } from './load/change-feed';
import { ReportAdmission } from './judge/report-admission';
import { SharedCache } from './cache/shared-cache';

/** How a read of reports selected them: by reach, a page, changes, or the whole tenant. */
function kindOf(selection: ReportSelection): string {
  if (!selection) return 'all';
  if ('reach' in selection) return 'reach';
  if ('after' in selection) return 'page';
  return 'changedAfter' in selection ? 'changes' : 'ids';
}

/**
 * The real repository, counting the report rows each kind of read returned; pages after the
 * first wait while `holdPages` is set (a background load caught midway).
 */
export class CountingReads implements CatalogReads, PagedReads {
  readonly rows = new Map<string, number>();
  readonly pagedLoads = true;
  private held?: { promise: Promise<void>; release: () => void };

  constructor(private readonly repo: CatalogRepository) {}

  read(kind: string): number {
    return this.rows.get(kind) ?? 0;
  }

  holdPages(): void {
    let release!: () => void;
    const promise = new Promise<void>((resolve) => (release = resolve));
    this.held = { promise, release };
  }

  releasePages(): void {
    this.held?.release();
    this.held = undefined;
  }

  private async counted(read: Promise<StoredReport[]>, selection: ReportSelection) {
    const rows = await read;
    const kind = kindOf(selection);
    this.rows.set(kind, this.read(kind) + rows.length);
    return rows;
  }

  databaseIdentity = () => this.repo.databaseIdentity();
  findTenant = (tenantId: string) => this.repo.findTenant(tenantId);
  catalogStamp = (tenantId: string) => this.repo.catalogStamp(tenantId);
  loadAccess = (tenantId: string) => this.repo.loadAccess(tenantId);
  loadGenerated = (tenantId: string) => this.repo.loadGenerated(tenantId);
  changesSince = (tenantId: string, version: number) => this.repo.changesSince(tenantId, version);
  countReports = (tenantId: string, limit: number) => this.repo.countReports(tenantId, limit);
  loadReports = (tenantId: string, selection?: ReportSelection) =>
    this.counted(this.repo.loadReports(tenantId, selection), selection);

  inSnapshot<T>(fn: (reads: SnapshotReads) => Promise<T>): Promise<T> {
    return this.repo.inSnapshot((reads) =>
      fn({
        findTenant: (tenantId) => reads.findTenant(tenantId),
        loadAccess: (tenantId) => reads.loadAccess(tenantId),
        loadGenerated: (tenantId) => reads.loadGenerated(tenantId),
        loadReports: async (tenantId, selection) => {
          if (selection && 'after' in selection && selection.after !== null && this.held)
            await this.held.promise;
          return this.counted(reads.loadReports(tenantId, selection), selection);
        },
      }),
    );
  }
}

/** One gateway instance's registry over `handle`, with small paging settings. */
export function partialInstance(
  handle: DatabaseHandle,
  paging = { partialAbove: 100, pageSize: 50 },
) {
  const metrics = new Metrics();
  const shared = new SharedCache(metrics, null);
  const admission = new ReportAdmission(metrics, null, new AdmissionVerdictRepository(handle));
  const settings = { ...DEFAULT_REGISTRY_OPTIONS, staleAfterMs: 0 };
  const reads = new CountingReads(new CatalogRepository(handle));
  const loader = new CatalogLoader(reads, shared, admission, metrics, settings, paging);
  const feed = new CatalogChangeFeed(handle, metrics, settings);
  const store = new CatalogStore(loader, feed, metrics);
  const catalogs = new CatalogService(store, new BuiltinTools(), shared, metrics, settings);
  const builds = (source: string) => metrics.value('gateway_catalog_builds_total', { source });
  return { catalogs, store, reads, admission, builds, feed };
}

/**
 * A tenant of `size` reports, each its own template: r00001-r00005 in category vis5, every
 * tenth in category c2, the rest in bulk; role five is granted vis5, role other c2 and the
 * single report r00007, role admin is an admin.
 */
export async function seedBigTenant(handle: DatabaseHandle, tenant: string, size: number) {
  const q = handle.db;
  await sql`INSERT INTO gateway.tenants (id, name) VALUES (${tenant}, 'Big')`.execute(q);
  await sql`INSERT INTO gateway.datasources (tenant_id, data_schema, allowed_tables)
            VALUES (${tenant}, 'tenant_acme', '{orders}')`.execute(q);
  await sql`INSERT INTO gateway.roles (tenant_id, name, description, is_admin)
            VALUES (${tenant}, 'five', 'sees 5', false), (${tenant}, 'other', 'sees c2', false),
                   (${tenant}, 'admin', 'all', true)`.execute(q);
  await sql`INSERT INTO gateway.role_grants (tenant_id, role, category, report_id)
            VALUES (${tenant}, 'five', 'vis5', NULL), (${tenant}, 'other', 'c2', NULL),
                   (${tenant}, 'other', NULL, 'r00007')`.execute(q);
  await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
    SELECT ${tenant}, 'r' || lpad(i::text, 5, '0'), 'Report ' || i, 'Synthetic report ' || i,
           'SELECT count(*) AS n FROM orders WHERE ' || i || ' > 0',
           CASE WHEN i <= 5 THEN 'vis5' WHEN i % 10 = 0 THEN 'c2' ELSE 'bulk' END
      FROM generate_series(1, ${size}) i`.execute(q);
}

/** The tool names of the active reports of these categories and ids, as Postgres has them now. */
export async function expectedTools(
  handle: DatabaseHandle,
  tenant: string,
  categories: string[],
  ids: string[] = [],
): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM gateway.reports
     WHERE tenant_id = ${tenant} AND status = 'active'
       AND (category = ANY(${categories}) OR id = ANY(${ids})) ORDER BY id`.execute(handle.db);
  return rows.map((r) => `query_report_${r.id}`);
}
