import { Inject, Injectable, Optional } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { Metrics } from '../metrics';
import type { TenantCatalog } from './model/tenant-catalog';
import { CatalogChangeFeed } from './load/change-feed';
import type { CatalogChangeListener } from './load/change-feed';
import { CatalogLoader, tenantMissing } from './load/catalog-loader';
import type { CatalogStamp } from './load/catalog-loader';
import { CatalogBuilds } from './catalog-builds';
import { CatalogCompletion, installation } from './catalog-completion';
import { stampOrStale } from './catalog-freshness';
import type { Principal } from '../access/principal';

interface TenantState {
  catalog: TenantCatalog;
  checkedAt: number;
}

/** How many tenants' catalogs one instance holds (least recently used go first). */
export const CATALOG_CAPACITY = Symbol('CATALOG_CAPACITY');
const DEFAULT_CAPACITY = 10_000;

/** The parts of the loader the store uses. */
export type CatalogSource = Pick<CatalogLoader, 'stamp' | 'load' | 'l2Scope'> &
  Partial<Pick<CatalogLoader, 'appliedChanges' | 'cover' | 'loadComplete'>>;

/** The parts of the change feed the store uses. */
export type ChangeSource = Pick<CatalogChangeFeed, 'onChange' | 'publish' | 'freshness'>;

function matches(catalog: TenantCatalog, stamp: CatalogStamp): boolean {
  return catalog.version >= stamp.version && catalog.tenant.createdAt === stamp.createdAt;
}

/**
 * The live catalog of every tenant this instance has served. Postgres holds the truth;
 * each tenant's catalog is kept in memory at its current version, dropped the moment the
 * change feed says it changed (from any instance, any path), and rebuilt by the loader on
 * the next request. Concurrent misses of a tenant merge into one build (lru-cache `fetch`);
 * a build that a change notice overtook answers its callers but is not kept.
 */
@Injectable()
export class CatalogStore {
  private readonly states: LRUCache<string, TenantState, CatalogStamp>;
  /** loads on each tenant's last catalog, kept across invalidation for incremental refreshes */
  private readonly builds: CatalogBuilds;
  /** background loads of the complete catalog of tenants held partially */
  readonly completion: CatalogCompletion;

  constructor(
    @Inject(CatalogLoader) private readonly loader: CatalogSource,
    @Inject(CatalogChangeFeed) private readonly feed: ChangeSource,
    private readonly metrics: Metrics,
    @Optional() @Inject(CATALOG_CAPACITY) capacity: number | null = null,
  ) {
    this.completion = new CatalogCompletion(
      {
        held: (tenantId, options) => this.held(tenantId, options),
        load: (tenantId) => loader.loadComplete!(tenantId),
        cover: loader.cover && ((catalog, reach) => loader.cover!(catalog, reach)),
        install: (catalog) => this.completed(catalog),
      },
      metrics,
    );
    const max = capacity ?? DEFAULT_CAPACITY;
    this.builds = new CatalogBuilds(loader, metrics, max, (id) => this.completion.ensure(id));
    this.states = new LRUCache<string, TenantState, CatalogStamp>({
      max,
      // a build overtaken by a change notice (delete/clear) still answers its callers...
      ignoreFetchAbort: true,
      // ...and a failed one leaves the state it was replacing in place
      noDeleteOnFetchRejection: true,
      fetchMethod: (tenantId, _stale, { context }) => this.build(tenantId, context),
    });
    // first listener: memory is dropped before anyone else hears of the change
    feed.onChange((tenantId) => this.forget(tenantId));
    metrics.describe(
      'gateway_catalog_stale_serves_total',
      'lists served from memory while Postgres was unreachable',
    );
    metrics.describe(
      'gateway_catalog_propagation_seconds',
      'from a report change to this instance holding a catalog that serves it',
    );
  }

  /** Called for every tenant whose catalog changed ('*' = any tenant may have). */
  onChange(listener: CatalogChangeListener): () => void {
    return this.feed.onChange(listener);
  }

  get isListening(): boolean {
    return this.feed.freshness.listening;
  }

  /**
   * The tenant's complete catalog: a big tenant held partially waits for its background load
   * (see `covering` for callers who need only their own reach).
   */
  catalog(tenantId: string, options: { verify?: boolean } = {}): Promise<TenantCatalog> {
    return this.completion.complete(tenantId, options);
  }

  /** The tenant's catalog holding at least the caller's reach (CatalogCompletion.covering). */
  covering(principal: Principal): Promise<TenantCatalog> {
    return this.completion.covering(principal);
  }

  /**
   * The tenant's catalog as held, partial or not. From memory while the LISTEN connection
   * vouches for it; otherwise (listener down, or `verify`) the version is read from Postgres
   * first.
   */
  private async held(tenantId: string, options: { verify?: boolean } = {}): Promise<TenantCatalog> {
    if (!options.verify) {
      const current = this.current(tenantId);
      if (current) return current;
    }
    const state = this.states.peek(tenantId, { allowStale: true });
    const stamp = await stampOrStale(tenantId, this.loader, state !== undefined, () =>
      this.metrics.inc('gateway_catalog_stale_serves_total'),
    );
    if (stamp === 'stale') return state!.catalog;
    if (stamp === undefined) {
      this.states.delete(tenantId);
      this.builds.dropBase(tenantId);
      throw tenantMissing();
    }
    // the same version of another tenant of this id (deleted, created again) is not a match
    if (
      state &&
      state.catalog.version === stamp.version &&
      state.catalog.tenant.createdAt === stamp.createdAt
    ) {
      state.checkedAt = Date.now();
      return state.catalog;
    }
    let built = await this.states.fetch(tenantId, { context: stamp, forceRefresh: true });
    // a build already under way when the stamp was read may be of an older version
    if (built && !matches(built.catalog, stamp))
      built = await this.states.fetch(tenantId, { context: stamp, forceRefresh: true });
    return built!.catalog;
  }

  private async build(tenantId: string, stamp: CatalogStamp): Promise<TenantState> {
    const { catalog, builtAt } = await this.builds.build(tenantId, stamp);
    return { catalog, checkedAt: builtAt };
  }

  /** A complete catalog loaded in the background takes the place of the partial one. */
  private completed(done: TenantCatalog): void {
    const id = done.tenant.id;
    const state = this.states.peek(id, { allowStale: true });
    const decided = installation(done, state?.catalog, this.builds.base(id));
    if (decided.previous) this.builds.keepBase(done);
    if (decided.state === 'replace')
      this.states.set(id, { catalog: done, checkedAt: state!.checkedAt });
    if (decided.state === 'drop') this.states.delete(id);
  }

  /** The tenant's catalog if memory alone may answer (the LISTEN connection vouches for it). */
  current(tenantId: string): TenantCatalog | undefined {
    const state = this.states.get(tenantId);
    return state && this.feed.freshness.trusted(state.checkedAt) ? state.catalog : undefined;
  }

  /** The last catalog this instance built for a tenant, however old (for degraded mode). */
  lastKnown(tenantId: string): TenantCatalog | undefined {
    return this.states.peek(tenantId, { allowStale: true })?.catalog;
  }

  /** The L2 key space of a tenant incarnation (see CatalogLoader.l2Scope). */
  l2Scope(tenant: { id: string; createdAt: string }): Promise<string | undefined> {
    return this.loader.l2Scope(tenant);
  }

  /** A tenant changed (a write of this instance): forget it and tell this instance's listeners. */
  invalidate(tenantId: string | '*'): void {
    this.feed.publish(tenantId);
  }

  /** Drops a tenant (or all) from memory; a build under way is not kept (lru-cache aborts it). */
  private forget(tenantId: string | '*'): void {
    this.builds.notified(tenantId === '*' ? [...this.states.keys()] : [tenantId], Date.now());
    if (tenantId === '*') this.states.clear();
    else this.states.delete(tenantId);
  }
}
