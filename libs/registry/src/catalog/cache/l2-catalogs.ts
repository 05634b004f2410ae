import { Logger } from '@nestjs/common';
import { catalogKey, openSnapshot, seal, tenantScope } from './l2-values';
import type { CatalogSnapshot } from './l2-values';
import type { SharedCache } from './shared-cache';

/** The part of the shared cache (L2) the loader uses. */
export type SnapshotCache = Pick<SharedCache, 'enabled' | 'read' | 'set'>;

/** A tenant's catalog version and the incarnation it belongs to. */
export interface CatalogStamp {
  version: number;
  createdAt: string;
}

/** A tenant with more reports than this has no L2 (Redis) catalog snapshot. */
export const L2_MAX_REPORTS = 5_000;

/**
 * Catalog snapshots in L2 (Redis), so another instance builds a tenant's catalog without
 * reading it from Postgres: keyed by metadata database, tenant incarnation and version.
 */
export class L2Catalogs {
  private readonly logger = new Logger('CatalogStore');
  private databaseId?: Promise<string | undefined>;

  constructor(
    private readonly shared: SnapshotCache,
    private readonly repository: { databaseIdentity(): Promise<string> },
    private readonly ttlSeconds: number,
  ) {}

  /**
   * The L2 key space of a tenant incarnation in this metadata database; undefined (L2 is
   * skipped) while the database's identity cannot be read.
   */
  async scope(tenant: { id: string; createdAt: string }): Promise<string | undefined> {
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

  /** The snapshot of the tenant at `stamp`, if L2 holds a sound one. */
  async read(tenantId: string, stamp: CatalogStamp): Promise<CatalogSnapshot | undefined> {
    const key = await this.key(tenantId, stamp);
    if (key === undefined) return undefined;
    return this.shared.read(key, (raw) =>
      openSnapshot(raw, { tenantId, createdAt: stamp.createdAt, version: stamp.version }),
    );
  }

  /**
   * Stores a snapshot read from Postgres for the other instances. Only a snapshot of the
   * incarnation and version asked for may be stored under them; a big tenant's is not stored
   * at all (serialising it would hold the event loop; its verdicts are persisted anyway).
   */
  async store(snapshot: CatalogSnapshot, stamp: CatalogStamp): Promise<void> {
    if (
      snapshot.reports.length > L2_MAX_REPORTS ||
      snapshot.tenant.catalogVersion !== stamp.version ||
      snapshot.tenant.createdAt !== stamp.createdAt
    )
      return;
    const key = await this.key(snapshot.tenant.id, stamp);
    if (key !== undefined)
      await this.shared.set(key, seal(JSON.stringify(snapshot)), this.ttlSeconds);
  }

  private async key(tenantId: string, stamp: CatalogStamp): Promise<string | undefined> {
    const scope = await this.scope({ id: tenantId, createdAt: stamp.createdAt });
    return scope === undefined ? undefined : catalogKey(scope, stamp.version);
  }
}
