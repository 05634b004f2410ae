import { Logger } from '@nestjs/common';
import type { Principal } from '../access/principal';
import { RegistryError } from '../errors';
import type { Metrics } from '../metrics';
import type { Reach } from './model/report-coverage';
import type { TenantCatalog } from './model/tenant-catalog';

/** What becomes of the store's catalogs when a background load brings a complete one. */
export interface Installation {
  /** the complete catalog becomes the base of the next refresh */
  previous: boolean;
  /** the partial catalog held: replaced by the complete one, dropped (a newer version is held:
   * the next request refreshes it from the complete one), or kept (nothing to complete) */
  state: 'replace' | 'drop' | 'keep';
}

/**
 * Where a complete catalog read in the background (`done`, one snapshot's version) goes,
 * given the partial catalog held (`held`) and the base of the next refresh (`previous`).
 * A complete catalog is never replaced by a partial or an older one of the same tenant.
 */
export function installation(
  done: TenantCatalog,
  held: TenantCatalog | undefined,
  previous: TenantCatalog | undefined,
): Installation {
  const base = betterBase(done, previous);
  if (!held || held.reports.complete || held.tenant.createdAt !== done.tenant.createdAt)
    return { previous: base, state: 'keep' };
  return { previous: base, state: held.version <= done.version ? 'replace' : 'drop' };
}

/**
 * Whether `next` should be the base of the tenant's next refresh instead of `previous`: a
 * complete catalog is replaced only by a complete one at least as new, or by another
 * incarnation of the tenant.
 */
export function betterBase(next: TenantCatalog, previous: TenantCatalog | undefined): boolean {
  if (!previous || previous.tenant.createdAt !== next.tenant.createdAt) return true;
  if (!previous.reports.complete) return true;
  return next.reports.complete && next.version >= previous.version;
}

/** The part of the tenant a caller's grants reach; undefined: all of it (an admin). */
export function reachOf(catalog: TenantCatalog, principal: Principal): Reach | undefined {
  const roles = catalog.access.effectiveRoles(principal);
  const reach = catalog.access.reach(principal, roles);
  return reach.everything ? undefined : { categories: reach.categories, ids: reach.names };
}

export const databaseUnavailable = () =>
  new RegistryError(
    'DATABASE_UNAVAILABLE',
    'the catalog database is unavailable; try again shortly',
  );

/** A registry error as is; any other failure (Postgres unreachable) as DATABASE_UNAVAILABLE. */
export function asRegistryError(err: unknown): RegistryError {
  return err instanceof RegistryError ? err : databaseUnavailable();
}

/** What the completion needs of the store and the loader. */
export interface CompletionHost {
  /** the catalog held for the tenant, partial or not */
  held(tenantId: string, options?: { verify?: boolean }): Promise<TenantCatalog>;
  /** the complete catalog, read in the background */
  load(tenantId: string): Promise<TenantCatalog>;
  /** makes a partial catalog hold a reach (undefined: catalogs are never partial) */
  cover?(catalog: TenantCatalog, reach: Reach): Promise<void>;
  /** puts a complete catalog in the place of the partial one */
  install(catalog: TenantCatalog): void;
}

/**
 * The background loads that complete partial catalogs: at most one per tenant at a time.
 * A failed load is logged and leaves the partial catalog in place (it still answers the
 * callers whose reach it holds, never anyone else); the next request that finds it partial
 * starts another.
 */
export class CatalogCompletion {
  private readonly logger = new Logger('CatalogStore');
  private readonly running = new Map<string, Promise<TenantCatalog>>();

  constructor(
    private readonly host: CompletionHost,
    private readonly metrics: Pick<Metrics, 'describe' | 'set'>,
  ) {
    metrics.describe(
      'gateway_catalog_background_loads',
      'complete catalogs of big tenants being read in the background',
    );
  }

  /** The tenant's complete catalog: a partial one held waits for its background load. */
  async complete(tenantId: string, options: { verify?: boolean } = {}): Promise<TenantCatalog> {
    for (let round = 0; round < 3; round++) {
      const catalog = await this.host.held(tenantId, options);
      if (catalog.reports.complete) return catalog;
      // installed in place of the partial one, unless a change overtook it: ask again
      await this.start(tenantId);
    }
    throw databaseUnavailable();
  }

  /**
   * The tenant's catalog, holding at least every report the caller's grants reach: a
   * partial catalog reads the caller's reach first (only that, once per set), an admin's
   * waits for the complete one. A failed read adds nothing and is DATABASE_UNAVAILABLE.
   */
  async covering(principal: Principal): Promise<TenantCatalog> {
    const catalog = await this.host.held(principal.tenantId);
    if (catalog.reports.complete || !this.host.cover) return catalog;
    const reach = reachOf(catalog, principal);
    if (!reach) return this.complete(principal.tenantId);
    await this.host.cover(catalog, reach).catch((err: unknown) => {
      throw asRegistryError(err);
    });
    // a background load that failed is tried again
    this.ensure(principal.tenantId);
    return catalog;
  }

  /** The load under way for the tenant, or a new one; rejects as a RegistryError. */
  start(tenantId: string): Promise<TenantCatalog> {
    let run = this.running.get(tenantId);
    if (!run) {
      run = this.host
        .load(tenantId)
        .then((catalog) => {
          this.host.install(catalog);
          return catalog;
        })
        .catch((err: unknown) => {
          this.logger.warn(
            `background load of ${tenantId}'s catalog failed: ${err instanceof Error ? err.message : String(err)}`,
          );
          throw asRegistryError(err);
        })
        .finally(() => {
          this.running.delete(tenantId);
          this.metrics.set('gateway_catalog_background_loads', this.running.size);
        });
      this.running.set(tenantId, run);
      this.metrics.set('gateway_catalog_background_loads', this.running.size);
    }
    return run;
  }

  /** Starts a load for the tenant unless one is under way; its failure is only logged. */
  ensure(tenantId: string): void {
    if (!this.running.has(tenantId)) this.start(tenantId).catch(() => undefined);
  }

  /** Resolves when no load is under way (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }
}
