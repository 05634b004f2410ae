import { LRUCache } from 'lru-cache';
import { RegistryError } from '../errors';
import type { Metrics } from '../metrics';
import type { TenantCatalog } from './model/tenant-catalog';
import type { CatalogLoader, CatalogStamp } from './load/catalog-loader';
import { betterBase } from './catalog-completion';
import { PropagationLag } from './propagation-lag';

/** The parts of the loader a build uses. */
export type BuildSource = Pick<CatalogLoader, 'load'> &
  Partial<Pick<CatalogLoader, 'appliedChanges'>>;

/**
 * Builds tenant catalogs for the store, each on the last one built for the tenant (its base,
 * kept across invalidation so a refresh reads only the changes), and measures how long a
 * change took to reach a built catalog. Holds at most `capacity` bases (least recently used
 * go first).
 */
export class CatalogBuilds {
  private readonly bases: LRUCache<string, TenantCatalog>;
  private readonly lag = new PropagationLag();

  constructor(
    private readonly loader: BuildSource,
    private readonly metrics: Metrics,
    capacity: number,
    /** told of a partial catalog as soon as it is built (its complete load can start) */
    private readonly onPartial: (tenantId: string) => void,
  ) {
    this.bases = new LRUCache({ max: capacity });
  }

  /** The tenant's catalog at `stamp`, built on its base; when the build ended. */
  async build(
    tenantId: string,
    stamp: CatalogStamp,
  ): Promise<{ catalog: TenantCatalog; builtAt: number }> {
    const started = Date.now();
    try {
      const catalog = await this.loader.load(tenantId, stamp, this.bases.get(tenantId));
      // a partial catalog never replaces a complete base for refreshes
      if (betterBase(catalog, this.bases.get(tenantId))) this.bases.set(tenantId, catalog);
      if (!catalog.reports.complete) this.onPartial(tenantId);
      const now = Date.now();
      const changes = this.loader.appliedChanges?.(catalog) ?? [];
      this.lag.observe(this.metrics, tenantId, changes, started, now);
      return { catalog, builtAt: now };
    } catch (err) {
      if (err instanceof RegistryError && err.code === 'TENANT_NOT_FOUND') this.dropBase(tenantId);
      throw err;
    }
  }

  /** The base the tenant's next build starts from, if any. */
  base(tenantId: string): TenantCatalog | undefined {
    return this.bases.get(tenantId);
  }

  /** `catalog` is the base of its tenant's next build (a complete load replacing a partial one). */
  keepBase(catalog: TenantCatalog): void {
    this.bases.set(catalog.tenant.id, catalog);
  }

  /** The tenant is gone: its next build starts from nothing. */
  dropBase(tenantId: string): void {
    this.bases.delete(tenantId);
  }

  /** This instance learned at `now` that the tenants changed (the lag counts from there). */
  notified(tenantIds: Iterable<string>, now: number): void {
    for (const t of tenantIds) this.lag.notified(t, now);
  }
}
