import { createHash } from 'node:crypto';
import type { DatabaseHandle, Unlisten } from '@app/db';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { AccessPolicy } from './access-policy';
import { CatalogFreshness } from './catalog-freshness';
import { CatalogRepository } from './catalog.repository';
import type { AccessRecords, GeneratedToolRecord, TenantRecord } from './catalog.repository';
import { GeneratedTool, generatedToolProblem } from './generated-tools';
import { RegistryError } from './errors';
import { Metrics } from './metrics';
import { PROPAGATION_BUCKETS, PropagationLag } from './propagation-lag';
import { SharedCache } from './shared-cache';
import { catalogKey, openSnapshot, seal, tenantScope } from './l2-values';
import type { CatalogSnapshot } from './l2-values';
import { admitReport, TenantCatalog } from './tenant-catalog';
import type { AdmittedReport } from './tenant-catalog';
import { ReportSet } from './report-set';
import type { AdmitReport } from './report-set';
import { DATABASE, DEFAULT_REGISTRY_OPTIONS, REGISTRY_OPTIONS } from './tokens';
import type { RegistryOptions } from './tokens';

export const CATALOG_CHANNEL = 'gateway_catalog';

/** What every report verdict of a tenant depends on besides the report: schema and tables. */
function dataScope(tenant: TenantRecord): string {
  return createHash('sha256')
    .update(`${tenant.dataSchema}|${tenant.allowedTables.join(',')}`)
    .digest('base64url')
    .slice(0, 12);
}

interface TenantState {
  version: number;
  catalog: TenantCatalog;
  checkedAt: number;
}

interface CatalogStamp {
  version: number;
  createdAt: string;
}

export type CatalogChangeListener = (tenantId: string | '*') => void;

const tenantMissing = () =>
  new RegistryError('TENANT_NOT_FOUND', 'the token names a tenant that does not exist');

/**
 * The live catalog of every tenant this instance has served. Postgres holds the truth;
 * each tenant's catalog is kept in memory at its current version, dropped the moment a
 * NOTIFY says it changed (from any instance, any path), and rebuilt from L2 (Redis) or
 * Postgres on the next request. Rendered report tools are reused across versions of the
 * catalog as long as the report itself did not change.
 */
@Injectable()
export class CatalogStore implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('CatalogStore');
  private readonly repository: CatalogRepository;
  private readonly options: RegistryOptions;
  private readonly freshness: CatalogFreshness;
  private readonly states = new Map<string, TenantState>();
  private readonly building = new Map<string, Promise<TenantCatalog>>();
  /** bumped by every change notice, so a build that raced one is not kept */
  private readonly generations = new Map<string, number>();
  private readonly rendered = new LRUCache<string, AdmittedReport>({ max: 200_000 });
  private readonly generatedTools = new LRUCache<string, { tool?: GeneratedTool }>({ max: 10_000 });
  private readonly changeListeners = new Set<CatalogChangeListener>();
  private readonly loggedInvalid = new Set<string>();
  private unlisten?: Unlisten;
  private reconnectTimer?: NodeJS.Timeout;
  private reconnectDelayMs = 100;
  private stopped = false;
  private readonly lag = new PropagationLag();
  /** the report changes (their updated_at) a refreshed catalog applied, for the lag metric */
  private readonly applied = new WeakMap<TenantCatalog, string[]>();

  constructor(
    @Inject(DATABASE) private readonly database: DatabaseHandle,
    @Optional() @Inject(REGISTRY_OPTIONS) options: RegistryOptions | null = null,
    private readonly shared: SharedCache,
    private readonly metrics: Metrics,
  ) {
    this.repository = new CatalogRepository(database);
    this.options = options ?? DEFAULT_REGISTRY_OPTIONS;
    this.freshness = new CatalogFreshness(this.options.staleAfterMs);
    metrics.describe('gateway_catalog_builds_total', 'tenant catalogs built, by source');
    metrics.describe('gateway_catalog_listener_up', '1 while the LISTEN connection is up');
    metrics.describe(
      'gateway_sql_guard_refusals_total',
      'report templates the SQL guard refused at load (once per report version), by rule',
    );
    metrics.describe(
      'gateway_catalog_stale_serves_total',
      'lists served from memory while Postgres was unreachable',
    );
    metrics.describe(
      'gateway_catalog_propagation_seconds',
      'from a report change to this instance holding a catalog that serves it',
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.startListening();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    await this.unlisten?.();
  }

  /** Called for every tenant whose catalog changed ('*' = any tenant may have). */
  onChange(listener: CatalogChangeListener): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  get isListening(): boolean {
    return this.freshness.listening;
  }

  /**
   * The tenant's catalog. From memory while the LISTEN connection vouches for it; otherwise
   * (listener down, or `verify`) the version is read from Postgres first.
   */
  async catalog(tenantId: string, options: { verify?: boolean } = {}): Promise<TenantCatalog> {
    if (!options.verify) {
      const current = this.current(tenantId);
      if (current) return current;
    }
    const state = this.states.get(tenantId);
    let stamp: { version: number; createdAt: string } | undefined;
    try {
      stamp = await this.repository.catalogStamp(tenantId);
    } catch (err) {
      // Postgres is unreachable: the last catalog built here still answers lists.
      if (state) {
        this.metrics.inc('gateway_catalog_stale_serves_total');
        return state.catalog;
      }
      this.logger.warn(
        `catalog version of ${tenantId} unreadable: ${err instanceof Error ? err.message : String(err)}`,
      );
      throw new RegistryError(
        'DATABASE_UNAVAILABLE',
        'the catalog database is unavailable; try again shortly',
      );
    }
    if (stamp === undefined) {
      this.states.delete(tenantId);
      this.previous.delete(tenantId);
      throw tenantMissing();
    }
    // the same version of another tenant of this id (deleted, created again) is not a match
    if (
      state &&
      state.version === stamp.version &&
      state.catalog.tenant.createdAt === stamp.createdAt
    ) {
      state.checkedAt = Date.now();
      return state.catalog;
    }
    return this.build(tenantId, stamp);
  }

  /** The last catalog this instance built for a tenant, kept across invalidation for refreshes. */
  private readonly previous = new Map<string, TenantCatalog>();

  /** The tenant's catalog if memory alone may answer (the LISTEN connection vouches for it). */
  current(tenantId: string): TenantCatalog | undefined {
    const state = this.states.get(tenantId);
    return state && this.trusted(state) ? state.catalog : undefined;
  }

  /** The last catalog this instance built for the tenant, however old (for degraded mode). */
  lastKnown(tenantId: string): TenantCatalog | undefined {
    return this.states.get(tenantId)?.catalog;
  }

  private trusted(state: TenantState): boolean {
    return this.freshness.trusted(state.checkedAt);
  }

  private build(tenantId: string, stamp: CatalogStamp): Promise<TenantCatalog> {
    const key = `${tenantId}@${stamp.version}@${stamp.createdAt}`;
    const pending = this.building.get(key);
    if (pending) return pending;
    const generation = this.generations.get(tenantId) ?? 0;
    const started = Date.now();
    const promise = this.load(tenantId, stamp)
      .then((catalog) => {
        this.previous.set(tenantId, catalog);
        if ((this.generations.get(tenantId) ?? 0) === generation) {
          const now = Date.now();
          this.states.set(tenantId, { version: catalog.version, catalog, checkedAt: now });
          const lag = this.lag.applied(tenantId, this.applied.get(catalog) ?? [], started, now);
          if (lag !== undefined)
            this.metrics.observe(
              'gateway_catalog_propagation_seconds',
              {},
              lag,
              PROPAGATION_BUCKETS,
            );
        }
        return catalog;
      })
      .finally(() => this.building.delete(key));
    this.building.set(key, promise);
    return promise;
  }

  /**
   * A tenant this instance served before is refreshed: only reports changed or removed
   * since the catalog it holds are read (see the report-changes migration), and the rest is
   * reused as is, so a change in a big catalog costs what changed. A tenant seen for the
   * first time comes from L2, else Postgres.
   */
  private async load(tenantId: string, stamp: CatalogStamp): Promise<TenantCatalog> {
    const previous = this.previous.get(tenantId);
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
    // Only a snapshot of the incarnation and version asked for may be stored under them.
    if (
      l2Key !== undefined &&
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

  private databaseId?: Promise<string | undefined>;

  /**
   * The tenant row is read first: its version is what the new catalog claims to be, and the
   * changes read after it may only be newer (read again, harmlessly, by the next refresh).
   * Undefined when the previous catalog cannot be patched (the tenant was re-created).
   */
  private async refresh(previous: TenantCatalog): Promise<TenantCatalog | undefined> {
    const tenantId = previous.tenant.id;
    const tenant = await this.repository.findTenant(tenantId);
    if (!tenant) {
      this.previous.delete(tenantId);
      throw tenantMissing();
    }
    // Another tenant of the same id (deleted and created again): its versions start over, so
    // nothing of the previous one may be reused; it is read in full.
    if (tenant.createdAt !== previous.tenant.createdAt) return undefined;
    const [changes, access, generated] = await Promise.all([
      this.repository.changesSince(tenantId, previous.version),
      this.repository.loadAccess(tenantId),
      this.repository.loadGenerated(tenantId),
    ]);
    const reports = previous.reports.patch(
      changes.changed,
      changes.removed,
      dataScope(tenant),
      this.admitter(tenant),
    );
    const catalog = this.catalogOf(tenant, reports, access, generated);
    this.applied.set(
      catalog,
      changes.changed.map((r) => r.updatedAt),
    );
    return catalog;
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

  private assemble({ tenant, reports, access, generated }: CatalogSnapshot): TenantCatalog {
    const set = ReportSet.of(reports, dataScope(tenant), this.admitter(tenant));
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
      this.admitGenerated(tenant.id, generated ?? []),
    );
  }

  /** Judges a report once per version, status and data scope; verdicts are reused across catalogs. */
  private admitter(tenant: TenantRecord): AdmitReport {
    const scope = dataScope(tenant);
    return (stored) => {
      // updatedAt too: a report removed and added again starts over at version 1
      const key = `${tenant.id}:${stored.metadata.id}:${stored.metadata.version}:${stored.updatedAt}:${stored.status}:${scope}`;
      let verdict = this.rendered.get(key);
      if (!verdict) {
        verdict = admitReport(stored, tenant);
        this.rendered.set(key, verdict);
        this.logIfInvalid(tenant.id, verdict);
      }
      return verdict;
    };
  }

  /** Generated tools whose source matches its sha256 and whose schema compiles; others are logged once and skipped. */
  private admitGenerated(tenantId: string, records: GeneratedToolRecord[]): GeneratedTool[] {
    const tools: GeneratedTool[] = [];
    for (const record of records) {
      // keyed by what the source really is, so a tampered source is judged again
      const key = `${tenantId}:generated:${record.name}:${createHash('sha256').update(record.source).digest('hex')}:${record.sha256}:${record.status}`;
      let admitted = this.generatedTools.get(key);
      if (admitted === undefined) {
        const problem = generatedToolProblem(record);
        admitted = problem ? {} : { tool: new GeneratedTool(record) };
        this.generatedTools.set(key, admitted);
        if (problem && problem !== 'disabled')
          this.logger.warn(`generated tool ${tenantId}/${record.name} is skipped: ${problem}`);
      }
      if (admitted.tool) tools.push(admitted.tool);
    }
    return tools;
  }

  private logIfInvalid(tenantId: string, verdict: AdmittedReport): void {
    const { status } = verdict;
    if (status.served || status.reason === 'disabled') return;
    const key = `${tenantId}:${verdict.id}:${verdict.version}`;
    if (this.loggedInvalid.has(key)) return;
    this.loggedInvalid.add(key);
    if (status.reason === 'the SQL template was rejected')
      for (const rule of new Set(status.problems?.map((p) => p.rule)))
        this.metrics.inc('gateway_sql_guard_refusals_total', { rule });
    const problems = status.problems?.map((p) => p.message).join('; ') ?? '';
    this.logger.warn(
      `report ${tenantId}/${verdict.id} is not served: ${status.reason}${problems ? `: ${problems}` : ''}`,
    );
  }

  /** A tenant changed: forget it here; the next request rebuilds it at its new version. */
  invalidate(tenantId: string | '*'): void {
    const tenants = tenantId === '*' ? [...this.states.keys()] : [tenantId];
    const now = Date.now();
    for (const t of tenants) {
      this.generations.set(t, (this.generations.get(t) ?? 0) + 1);
      this.states.delete(t);
      this.lag.notified(t, now);
    }
    // Listeners run inside the LISTEN connection's event handler: one that throws must not
    // take the others, the connection or the process with it.
    for (const listener of this.changeListeners) {
      try {
        listener(tenantId);
      } catch (err) {
        this.logger.warn(
          `a catalog change listener failed for ${tenantId}: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
    }
  }

  private async startListening(): Promise<void> {
    if (this.stopped) return;
    try {
      this.unlisten = await this.database.listen(
        CATALOG_CHANNEL,
        (tenant) => this.invalidate(tenant),
        (err) => this.listenerLost(err),
      );
      const wasDown = !this.freshness.listening;
      this.freshness.listening = true;
      this.reconnectDelayMs = 100;
      this.metrics.set('gateway_catalog_listener_up', 1);
      // Anything may have changed while nobody was listening.
      if (wasDown) this.invalidate('*');
    } catch (err) {
      this.listenerLost(err);
    }
  }

  private listenerLost(err: unknown): void {
    if (this.stopped || this.reconnectTimer) return;
    if (this.freshness.listening)
      this.logger.warn(
        `LISTEN connection lost (${err instanceof Error ? err.message : String(err)}); reconnecting`,
      );
    this.freshness.listening = false;
    this.metrics.set('gateway_catalog_listener_up', 0);
    void this.unlisten?.();
    this.unlisten = undefined;
    const delay = this.reconnectDelayMs;
    this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, 5000);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.startListening();
    }, delay);
    this.reconnectTimer.unref();
  }
}
