import type { CatalogReads } from './load/catalog-loader';
import type { PagedReads, SnapshotReads } from './load/catalog-paging';
import type {
  AccessRecords,
  GeneratedToolRecord,
  ReportChanges,
  ReportSelection,
  StoredReport,
  TenantRecord,
} from './model/catalog-records';
import { accessRecords, TENANT } from './fixtures.spec-helper';

interface FakeTenant {
  tenant: TenantRecord;
  reports: Map<string, StoredReport>;
  access: AccessRecords;
  generated: GeneratedToolRecord[];
  /** catalog version at which each report id last changed, or was removed (`removed`) */
  log: Array<{ version: number; id: string; removed: boolean }>;
}

/**
 * The catalog repository in memory: tenants the test puts and edits (each edit bumps the
 * catalog version, as the triggers do), every read logged in `calls`, and `failing` names a
 * read that rejects from now on.
 */
export class FakeCatalogReads implements CatalogReads {
  readonly calls: string[] = [];
  failing?: string;
  private readonly tenants = new Map<string, FakeTenant>();
  private clock = 0;

  addTenant(id: string, reports: StoredReport[], access = accessRecords()): TenantRecord {
    const tenant = {
      ...TENANT,
      id,
      createdAt: `2026-11-30T00:00:${String(this.clock++).padStart(2, '0')}Z`,
    };
    this.tenants.set(id, {
      tenant,
      reports: new Map(reports.map((r) => [r.metadata.id, ownedBy(r, id)])),
      access,
      generated: [],
      log: [],
    });
    return tenant;
  }

  /** Inserts or updates a report (a new version of the tenant's catalog). */
  put(tenantId: string, report: StoredReport): void {
    const t = this.get(tenantId);
    const version = this.bump(t);
    const row = { ...ownedBy(report, tenantId), updatedAt: `2026-12-01T00:00:${version}Z` };
    t.reports.set(report.metadata.id, row);
    t.log.push({ version, id: report.metadata.id, removed: false });
  }

  remove(tenantId: string, id: string): void {
    const t = this.get(tenantId);
    t.reports.delete(id);
    t.log.push({ version: this.bump(t), id, removed: true });
  }

  setGenerated(tenantId: string, generated: GeneratedToolRecord[]): void {
    this.get(tenantId).generated = generated;
  }

  dropTenant(tenantId: string): void {
    this.tenants.delete(tenantId);
  }

  databaseIdentity = () => this.read('databaseIdentity', '', () => 'fake-db');
  findTenant = (id: string) => this.read('findTenant', id, () => this.tenants.get(id)?.tenant);
  catalogStamp = (id: string) =>
    this.read('catalogStamp', id, () => {
      const t = this.tenants.get(id)?.tenant;
      return t && { version: t.catalogVersion, createdAt: t.createdAt };
    });
  loadAccess = (id: string) => this.read('loadAccess', id, () => this.get(id).access);
  loadGenerated = (id: string) => this.read('loadGenerated', id, () => this.get(id).generated);
  loadReports = (id: string, selection?: ReportSelection) =>
    this.read(`loadReports(${kindOf(selection)})`, id, () => this.select(id, selection));
  changesSince = (id: string, version: number) =>
    this.read('changesSince', id, (): ReportChanges => {
      const t = this.get(id);
      const ids = new Set(t.log.filter((e) => e.version > version).map((e) => e.id));
      const changed = [...ids].flatMap((rid) => t.reports.get(rid) ?? []);
      const removed = t.log.filter((e) => e.version > version && e.removed).map((e) => e.id);
      return { changed, removed };
    });

  /** Reports in id order, as loadReports selects them. */
  private select(id: string, selection: ReportSelection): StoredReport[] {
    const all = [...this.get(id).reports.values()].sort((a, b) =>
      a.metadata.id < b.metadata.id ? -1 : 1,
    );
    if (!selection) return all;
    if ('reach' in selection) {
      const { categories, ids } = selection.reach;
      return all.filter(
        (r) => categories.includes(r.metadata.category) || ids.includes(r.metadata.id),
      );
    }
    if ('ids' in selection) return all.filter((r) => selection.ids.includes(r.metadata.id));
    if ('after' in selection) {
      const after = selection.after;
      return all.filter((r) => after === null || r.metadata.id > after).slice(0, selection.limit);
    }
    throw new Error('the fake does not select by changedAfter');
  }

  protected size(id: string): number {
    return this.get(id).reports.size;
  }

  private get(id: string): FakeTenant {
    const t = this.tenants.get(id);
    if (!t) throw new Error(`no tenant ${id} in the fake`);
    return t;
  }

  private bump(t: FakeTenant): number {
    t.tenant = { ...t.tenant, catalogVersion: t.tenant.catalogVersion + 1 };
    return t.tenant.catalogVersion;
  }

  protected read<T>(name: string, tenantId: string, fn: () => T): Promise<T> {
    this.calls.push(`${name}:${tenantId}`);
    if (this.failing === name || this.failing === name.split('(')[0])
      return Promise.reject(new Error(`${name.split('(')[0]} failed: connection terminated`));
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(err);
    }
  }
}

/** The fake, with the paged reads too (countReports, inSnapshot over itself). */
export class FakePagedReads extends FakeCatalogReads implements PagedReads {
  countReports = (id: string, limit: number) =>
    this.read('countReports', id, () => Math.min(this.size(id), limit));

  inSnapshot<T>(fn: (reads: SnapshotReads) => Promise<T>): Promise<T> {
    return fn(this);
  }
}

function ownedBy(report: StoredReport, tenantId: string): StoredReport {
  return { ...report, metadata: { ...report.metadata, tenantId } };
}

function kindOf(selection: ReportSelection): string {
  if (!selection) return 'all';
  if ('reach' in selection) return 'reach';
  if ('after' in selection) return 'page';
  return 'ids' in selection ? 'ids' : 'changes';
}
