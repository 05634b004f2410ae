import { listKey, openListBody, seal } from '../catalog/l2-values';
import type { SharedCache } from '../catalog/shared-cache';
import type { Metrics } from '../metrics';
import { ListCache } from './list-cache';

/** Where the L2 key space of a tenant incarnation comes from (the catalog store). */
export type ScopeSource = (tenant: {
  id: string;
  createdAt: string;
}) => Promise<string | undefined>;

/**
 * Serialised list bodies by cache key (toolset key and format): L1 in memory, L2 in Redis
 * under the tenant's versioned key space, built once for concurrent misses (ListCache).
 */
export class ListBodies {
  /** UTF-8 bytes, ready for the socket */
  private readonly l1 = new ListCache<Buffer>({
    max: 10_000,
    maxSize: 64 * 1024 * 1024,
    sizeOf: (body, key) => body.length + key.length,
  });
  private readonly countL1: () => void;

  constructor(
    private readonly shared: Pick<SharedCache, 'read' | 'set'>,
    private readonly scopeOf: ScopeSource,
    private readonly metrics: Pick<Metrics, 'describe' | 'counter' | 'inc'>,
    private readonly ttlSeconds: number,
    /** tells lists shaped differently apart in L2 (the list shaper's tag) */
    private readonly variant: string | undefined,
  ) {
    metrics.describe(
      'gateway_list_requests_total',
      'tool list requests, by cache level that answered',
    );
    this.countL1 = metrics.counter('gateway_list_requests_total', { level: 'l1' });
  }

  /** A body in L1, counted as an L1 answer; no I/O. */
  held(cacheKey: string): Buffer | undefined {
    const body = this.l1.get(cacheKey);
    if (body !== undefined) this.countL1();
    return body;
  }

  /** The body from L1, else L2, else `build` (stored in both); one build per key at a time. */
  fetch(
    cacheKey: string,
    tenant: { id: string; createdAt: string },
    build: () => Promise<string>,
  ): Promise<Buffer> {
    return this.l1.fetch(cacheKey, () => this.load(cacheKey, tenant, build));
  }

  /** Drops every body in L1; L2 keys carry the version, so stale ones are never read. */
  clear(): void {
    this.l1.clear();
  }

  private async load(
    cacheKey: string,
    tenant: { id: string; createdAt: string },
    build: () => Promise<string>,
  ): Promise<Buffer> {
    const scope = await this.scopeOf(tenant);
    const l2Key =
      scope === undefined
        ? undefined
        : listKey(scope, `${cacheKey}${this.variant ? `:${this.variant}` : ''}`);
    let json = l2Key === undefined ? undefined : await this.shared.read(l2Key, openListBody);
    if (json !== undefined) {
      this.metrics.inc('gateway_list_requests_total', { level: 'l2' });
    } else {
      json = await build();
      this.metrics.inc('gateway_list_requests_total', { level: 'build' });
      if (l2Key !== undefined) void this.shared.set(l2Key, seal(json), this.ttlSeconds);
    }
    return Buffer.from(json);
  }
}
