import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { AccessPolicy } from '../access/access-policy';
import { CatalogRepository } from './catalog.repository';
import type { AccessRecords, GeneratedToolRecord, TenantRecord } from './catalog-records';
import { RegistryError } from '../errors';
import { catalogKey, openSnapshot, seal, tenantScope } from './l2-values';
import type { CatalogSnapshot } from './l2-values';
import { Metrics } from '../metrics';
import { ReportSet } from './report-set';
import { SharedCache } from './shared-cache';
import { TenantCatalog } from './tenant-catalog';
import { DEFAULT_REGISTRY_OPTIONS, REGISTRY_OPTIONS } from '../tokens';
import type { RegistryOptions } from '../tokens';
import { dataScope, ReportAdmission } from './report-admission';

/** A tenant's catalog version and the incarnation it belongs to. */
export interface CatalogStamp {
  version: number;
  createdAt: string;
}

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
>;

/** The part of the shared cache (L2) the loader uses. */
export type SnapshotCache = Pick<SharedCache, 'enabled' | 'read' | 'set'>;

/** A tenant with more reports than this has no L2 (Redis) catalog snapshot. */
export const L2_MAX_REPORTS = 5_000;

export const tenantMissing = () =>
  new RegistryError('TENANT_NOT_FOUND', 'the token names a tenant that does not exist');

/**
 * Builds a tenant's catalog: patched from the previous one with only what changed (see the
 * report-changes migration), else from an L2 (Redis) snapshot, else read in full from
 * Postgres (and the snapshot stored in L2 for the other instances).
 */
@Injectable()
export class CatalogLoader {
  private readonly logger = new Logger('CatalogStore');
  private readonly options: RegistryOptions;
  private databaseId?: Promise<string | undefined>;
  /** the report changes (their updated_at) a refreshed catalog applied, for the lag metric */
  private readonly applied = new WeakMap<TenantCatalog, string[]>();

  constructor(
    @Inject(CatalogRepository) private readonly repository: CatalogReads,
    @Inject(SharedCache) private readonly shared: SnapshotCache,
    private readonly admission: ReportAdmission,
    private readonly metrics: Metrics,
    @Optional() @Inject(REGISTRY_OPTIONS) options: RegistryOptions | null = null,
  ) {
    this.options = options ?? DEFAULT_REGISTRY_OPTIONS;
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
    const scope = await this.l2Scope({ id: tenantId, createdAt: stamp.createdAt });
    const l2Key = scope === undefined ? undefined : catalogKey(scope, stamp.version);
    const cached =
      l2Key === undefined
        ? undefined
        : await this.shared.read(l2Key, (raw) =>
            openSnapshot(raw, { tenantId, createdAt: stamp.createdAt, version: stamp.version }),
          );
    if (cached) {
      this.metrics.inc('gateway_catalog_builds_total', { source: 'redis' });
      return this.assemble(cached);
    }
    const snapshot = await this.readPostgres(tenantId);
    this.metrics.inc('gateway_catalog_builds_total', { source: 'postgres' });
    // Only a snapshot of the incarnation and version asked for may be stored under them;
    // a big tenant's is not stored at all (serialising it would hold the event loop, and its
    // verdicts are persisted in Postgres anyway).
    if (
      l2Key !== undefined &&
      snapshot.reports.length <= L2_MAX_REPORTS &&
      snapshot.tenant.catalogVersion === stamp.version &&
      snapshot.tenant.createdAt === stamp.createdAt
    ) {
      void this.shared.set(l2Key, seal(JSON.stringify(snapshot)), this.options.cacheTtlSeconds);
    }
    return this.assemble(snapshot);
  }

  /**
   * The L2 key space of a tenant incarnation in this metadata database; undefined (L2 is
   * skipped) while the database's identity cannot be read.
   */
  async l2Scope(tenant: { id: string; createdAt: string }): Promise<string | undefined> {
    if (!this.shared.enabled) return undefined;
    this.databaseId ??= this.repository.databaseIdentity().catch((err: unknown) => {
      this.databaseId = undefined;
      this.logger.warn(
        `database identity unreadable, skipping the shared cache: ${err instanceof Error ? err.message : String(err)}`,
      );
      return undefined;
    });
    const id = await this.databaseId;
    return id === undefined ? undefined : tenantScope(id, tenant);
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
    this.admission.retire(
      previous.tenant,
      [...changes.changed.map((r) => r.metadata.id), ...changes.removed].flatMap(
        (id) => previous.reports.storedReport(id) ?? [],
      ),
      new Map(changes.changed.map((r) => [r.metadata.id, r])),
    );
    // what changed is judged in the background too, so a bad template shows in the metrics
    // before anyone lists it (all of them when the data scope changed)
    this.admission.judgeInBackground(
      tenant,
      reports,
      scope === previous.reports.scope ? changes.changed : undefined,
    );
    const catalog = this.catalogOf(tenant, reports, access, generated);
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

  private async readPostgres(tenantId: string): Promise<CatalogSnapshot> {
    const tenant = await this.repository.findTenant(tenantId);
    if (!tenant) throw tenantMissing();
    const [reports, access, generated] = await Promise.all([
      this.repository.loadReports(tenantId),
      this.repository.loadAccess(tenantId),
      this.repository.loadGenerated(tenantId),
    ]);
    return { tenant, reports, access, generated };
  }

  /**
   * A full load: reports are judged when a list first needs them (its caller's only), and
   * the rest in the background, so the first list costs what its caller sees.
   */
  private assemble({ tenant, reports, access, generated }: CatalogSnapshot): TenantCatalog {
    const set = ReportSet.lazy(reports, dataScope(tenant), this.admission.admitter(tenant));
    this.admission.judgeInBackground(tenant, set);
    return this.catalogOf(tenant, set, access, generated);
  }

  private catalogOf(
    tenant: TenantRecord,
    reports: ReportSet,
    access: AccessRecords,
    generated: GeneratedToolRecord[] | undefined,
  ): TenantCatalog {
    return new TenantCatalog(
      tenant,
      reports,
      new AccessPolicy(access),
      this.admission.admitGenerated(tenant.id, generated ?? []),
    );
  }
}
