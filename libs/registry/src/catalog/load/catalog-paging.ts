import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { CatalogRepository } from './catalog.repository';
import type { AccessRecords, GeneratedToolRecord, TenantRecord } from '../model/catalog-records';
import { RegistryError } from '../../errors';
import { isEmptyPart } from '../model/report-coverage';
import type { Reach } from '../model/report-coverage';
import { appendToParts, emptyParts } from '../model/report-set-patch';
import type { Parts } from '../model/report-set-patch';
import type { ReportSet } from '../model/report-set';
import { StringPool } from '../cache/string-pool';

/** How a big tenant's catalog is read (CATALOG_PAGING; tests make it small). */
export interface CatalogPagingOptions {
  /** a tenant with more reports than this is first loaded partially (default 5,000) */
  partialAbove: number;
  /** reports per page of a background load (default 2,000) */
  pageSize: number;
}

export const CATALOG_PAGING = Symbol('CATALOG_PAGING');

export const DEFAULT_CATALOG_PAGING: CatalogPagingOptions = {
  partialAbove: 5_000,
  pageSize: 2_000,
};

/** The reads of one snapshot (a transaction of the repository). */
export type SnapshotReads = Pick<
  CatalogRepository,
  'findTenant' | 'loadAccess' | 'loadGenerated' | 'loadReports'
>;

/** The reads partial and paged loads need (the repository, or a fake of it). */
export type PagedReads = Pick<CatalogRepository, 'countReports' | 'loadReports'> & {
  /** false where a long snapshot would hold the only connection (PGlite) */
  readonly pagedLoads?: boolean;
  inSnapshot<T>(fn: (reads: SnapshotReads) => Promise<T>): Promise<T>;
};

/** Everything a complete catalog is built from, the reports as set parts (not judged). */
export interface PagedCatalog {
  tenant: TenantRecord;
  parts: Parts;
  access: AccessRecords;
  generated: GeneratedToolRecord[];
}

export const tenantMissing = () =>
  new RegistryError('TENANT_NOT_FOUND', 'the token names a tenant that does not exist');

/**
 * The reads that make the cost of a big tenant's first list follow what its caller sees: the
 * first catalog holds no report (a partial set); each caller's reach is read when first
 * needed (`cover`: its categories and ids, one statement); the whole tenant is read in the
 * background (`readAll`: pages in id order, one snapshot, yielding between pages).
 */
export class CatalogPaging {
  /** reads under way per set, by part, so concurrent callers of one reach read it once */
  private readonly covering = new WeakMap<ReportSet, Map<string, Promise<void>>>();

  constructor(
    private readonly reads: PagedReads,
    readonly options: CatalogPagingOptions = DEFAULT_CATALOG_PAGING,
  ) {}

  /** Whether the tenant is big enough for a partial first catalog. */
  async wanted(tenantId: string): Promise<boolean> {
    if (this.reads.pagedLoads === false) return false;
    const limit = this.options.partialAbove;
    return (await this.reads.countReports(tenantId, limit + 1)) > limit;
  }

  /**
   * Makes a partial set hold every report `reach` names (nothing to do for a complete set).
   * A failed read adds nothing: the next caller reads the part again.
   */
  async cover(tenantId: string, set: ReportSet, reach: Reach): Promise<void> {
    const part = set.missing(reach);
    if (isEmptyPart(part)) return;
    let running = this.covering.get(set);
    if (!running) this.covering.set(set, (running = new Map()));
    const key = JSON.stringify(part);
    let read = running.get(key);
    if (!read) {
      read = this.reads
        .loadReports(tenantId, { reach: part })
        .then((reports) => set.absorb(reports, part))
        .finally(() => running.delete(key));
      running.set(key, read);
    }
    await read;
  }

  /** The whole tenant as it is in one snapshot, read in pages that yield between them. */
  readAll(tenantId: string): Promise<PagedCatalog> {
    const { pageSize } = this.options;
    return this.reads.inSnapshot(async (reads) => {
      const tenant = await reads.findTenant(tenantId);
      if (!tenant) throw tenantMissing();
      const [access, generated] = await Promise.all([
        reads.loadAccess(tenantId),
        reads.loadGenerated(tenantId),
      ]);
      const parts = emptyParts();
      const pool = new StringPool();
      for (let after: string | null = null; ;) {
        const page = await reads.loadReports(tenantId, { after, limit: pageSize });
        appendToParts(
          parts,
          page.map((r) => pool.report(r)),
        );
        if (page.length < pageSize) break;
        after = page[page.length - 1]!.metadata.id;
        await yieldToLoop();
      }
      return { tenant, parts, access, generated };
    });
  }
}
