import { Inject, Injectable, Optional } from '@nestjs/common';
import { AccessPolicy } from '../../access/access-policy';
import { CatalogRepository } from './catalog.repository';
import { CATALOG_PAGING, CatalogPaging, tenantMissing } from './catalog-paging';
import type { CatalogPagingOptions, PagedReads } from './catalog-paging';
import type { CatalogSnapshot } from '../cache/l2-values';
import { L2Catalogs } from '../cache/l2-catalogs';
import type { CatalogStamp, SnapshotCache } from '../cache/l2-catalogs';
import { Metrics } from '../../metrics';
import type { Reach } from '../model/report-coverage';
import { ReportSet } from '../model/report-set';
import { SharedCache } from '../cache/shared-cache';
import { TenantCatalog } from '../model/tenant-catalog';
import { DEFAULT_REGISTRY_OPTIONS, REGISTRY_OPTIONS } from '../../tokens';
import type { RegistryOptions } from '../../tokens';
import { dataScope, ReportAdmission } from '../judge/report-admission';

export { L2_MAX_REPORTS } from '../cache/l2-catalogs';
export type { CatalogStamp, SnapshotCache } from '../cache/l2-catalogs';
export { tenantMissing } from './catalog-paging';

/** The catalog reads the loader needs (the repository, or a fake of it). */
export type CatalogReads = Pick<
  CatalogRepository,
  | 'databaseIdentity'
  | 'findTenant'
  | 'catalogStamp'
  | 'loadReports'
  | 'loadAccess'
  | 'loadGenerated'
  | 'changesSince'
> &
  Partial<PagedReads>;

/**
 * Builds a tenant's catalog: patched from the previous one with only what changed (see the
 * report-changes migration), else from an L2 (Redis) snapshot, else from Postgres: read in
 * full (and stored in L2 for the other instances), or, for a tenant of more than
 * `partialAbove` reports, partial (CatalogPaging): no report read until a caller's reach is
 * `cover`ed, the complete catalog read in the background by `loadComplete`.
 */
@Injectable()
export class CatalogLoader {
  private readonly l2: L2Catalogs;
  private readonly paging?: CatalogPaging;
  /** the report changes (their updated_at) a refreshed catalog applied, for the lag metric */
  private readonly applied = new WeakMap<TenantCatalog, string[]>();

  constructor(
    @Inject(CatalogRepository) private readonly repository: CatalogReads,
    @Inject(SharedCache) shared: SnapshotCache,
    private readonly admission: ReportAdmission,
    private readonly metrics: Metrics,
    @Optional() @Inject(REGISTRY_OPTIONS) options: RegistryOptions | null = null,
    @Optional() @Inject(CATALOG_PAGING) paging: CatalogPagingOptions | null = null,
  ) {
    const ttl = (options ?? DEFAULT_REGISTRY_OPTIONS).cacheTtlSeconds;
    this.l2 = new L2Catalogs(shared, repository, ttl);
    const { countReports, inSnapshot } = repository;
    if (countReports && inSnapshot)
      this.paging = new CatalogPaging(repository as PagedReads, paging ?? undefined);
    metrics.describe('gateway_catalog_builds_total', 'tenant catalogs built, by source');
  }

  /** The tenant's current stamp, undefined when there is no such tenant. */
  stamp(tenantId: string): Promise<CatalogStamp | undefined> {
    return this.repository.catalogStamp(tenantId);
  }

  /**
   * The catalog at `stamp` or newer. A tenant this instance served before (`previous`) is
   * refreshed: only reports changed or removed since are read, the rest is reused as is,
   * so a change in a big catalog costs what changed.
   */
  async load(
    tenantId: string,
    stamp: CatalogStamp,
    previous?: TenantCatalog,
  ): Promise<TenantCatalog> {
    if (previous) {
      const refreshed = await this.refresh(previous);
      if (refreshed) {
        this.metrics.inc('gateway_catalog_builds_total', { source: 'refresh' });
        return refreshed;
      }
    }
    const cached = await this.l2.read(tenantId, stamp);
    if (cached) {
      this.metrics.inc('gateway_catalog_builds_total', { source: 'redis' });
      return this.assemble(cached);
    }
    if (await this.paging?.wanted(tenantId)) {
      this.metrics.inc('gateway_catalog_builds_total', { source: 'partial' });
      return this.partial(tenantId);
    }
    const snapshot = await this.readPostgres(tenantId);
    this.metrics.inc('gateway_catalog_builds_total', { source: 'postgres' });
    void this.l2.store(snapshot, stamp);
    return this.assemble(snapshot);
  }

  /** The L2 key space of a tenant incarnation (see L2Catalogs.scope). */
  l2Scope(tenant: { id: string; createdAt: string }): Promise<string | undefined> {
    return this.l2.scope(tenant);
  }

  /**
   * Makes a partial catalog hold every report `reach` names, reading only those (nothing
   * to do for a complete catalog).
   */
  async cover(catalog: TenantCatalog, reach: Reach): Promise<void> {
    if (!catalog.reports.complete)
      await this.paging?.cover(catalog.tenant.id, catalog.reports, reach);
  }

  /**
   * The tenant's complete catalog, read in pages of one snapshot that yield to the event loop
   * between them (its version is the snapshot's, which may be newer than the partial one's).
   */
  async loadComplete(tenantId: string): Promise<TenantCatalog> {
    if (!this.paging) throw new Error('paged loads need a repository that pages');
    const { tenant, parts, access, generated } = await this.paging.readAll(tenantId);
    const set = ReportSet.fromParts(parts, dataScope(tenant), this.admission.admitter(tenant));
    this.admission.judgeInBackground(tenant, set);
    this.metrics.inc('gateway_catalog_builds_total', { source: 'paged' });
    return this.catalogOf({ tenant, access, generated }, set);
  }

  /**
   * The tenant row is read first: its version is what the new catalog claims to be, and the
   * changes read after it may only be newer (read again, harmlessly, by the next refresh).
   * Undefined when the previous catalog cannot be patched (the tenant was re-created).
   */
  private async refresh(previous: TenantCatalog): Promise<TenantCatalog | undefined> {
    const tenantId = previous.tenant.id;
    const tenant = await this.repository.findTenant(tenantId);
    if (!tenant) throw tenantMissing();
    // Another tenant of the same id (deleted and created again): its versions start over, so
    // nothing of the previous one may be reused; it is read in full.
    if (tenant.createdAt !== previous.tenant.createdAt) return undefined;
    const [changes, access, generated] = await Promise.all([
      this.repository.changesSince(tenantId, previous.version),
      this.repository.loadAccess(tenantId),
      this.repository.loadGenerated(tenantId),
    ]);
    const scope = dataScope(tenant);
    const reports = previous.reports.patch(
      changes.changed,
      changes.removed,
      scope,
      this.admission.admitter(tenant),
    );
    this.admission.patched(previous, tenant, changes, reports);
    const catalog = this.catalogOf({ tenant, access, generated }, reports);
    this.applied.set(
      catalog,
      changes.changed.map((r) => r.updatedAt),
    );
    return catalog;
  }

  /** The report changes (their `updated_at`) a refreshed catalog applied, for the lag metric. */
  appliedChanges(catalog: TenantCatalog): readonly string[] {
    return this.applied.get(catalog) ?? [];
  }

  /** The tenant, its access and generated tools, and its reports unless `reports` is false. */
  private async readPostgres(tenantId: string, reports = true): Promise<CatalogSnapshot> {
    const tenant = await this.repository.findTenant(tenantId);
    if (!tenant) throw tenantMissing();
    const [stored, access, generated] = await Promise.all([
      reports ? this.repository.loadReports(tenantId) : [],
      this.repository.loadAccess(tenantId),
      this.repository.loadGenerated(tenantId),
    ]);
    return { tenant, reports: stored, access, generated };
  }

  /** A big tenant's first catalog: no report yet (see `cover`). */
  private async partial(tenantId: string): Promise<TenantCatalog> {
    const read = await this.readPostgres(tenantId, false);
    const admit = this.admission.admitter(read.tenant);
    return this.catalogOf(read, ReportSet.partial(dataScope(read.tenant), admit));
  }

  /** Reports judged when a list first needs them (its caller's only), the rest in the background. */
  private assemble(read: CatalogSnapshot): TenantCatalog {
    const { tenant } = read;
    const set = ReportSet.lazy(read.reports, dataScope(tenant), this.admission.admitter(tenant));
    this.admission.judgeInBackground(tenant, set);
    return this.catalogOf(read, set);
  }

  private catalogOf(read: Omit<CatalogSnapshot, 'reports'>, reports: ReportSet): TenantCatalog {
    const { tenant, access, generated } = read;
    const tools = this.admission.admitGenerated(tenant.id, generated ?? []);
    return new TenantCatalog(tenant, reports, new AccessPolicy(access), tools);
  }
}
