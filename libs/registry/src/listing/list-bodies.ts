import { listKey, openListBody, seal } from '../catalog/cache/l2-values';
import type { SharedCache } from '../catalog/cache/shared-cache';
import type { Metrics } from '../metrics';
import { LRUCache } from 'lru-cache';
import { ListCache } from './list-cache';
import type { ServedTool } from './served-tool';
import type { ToolDefinition, ToolFormat } from '@app/templates';

/** Where the L2 key space of a tenant incarnation comes from (the catalog store). */
export type ScopeSource = (tenant: {
  id: string;
  createdAt: string;
}) => Promise<string | undefined>;

/**
 * A list shaped for one caller beyond its toolset (an MCP session's found tools): `suffix`
 * tells it apart in the cache keys, so it must name everything `shape` depends on.
 */
export interface ListVariant {
  readonly suffix: string;
  shape(tools: readonly ServedTool[]): ToolDefinition[];
}

/** A body's cache key: toolset key, format and variant (REST and MCP lists share them). */
export function bodyKey(key: string, format: ToolFormat, variant?: ListVariant): string {
  return variant ? `${key}:${format}:${variant.suffix}` : `${key}:${format}`;
}

/** most bytes of list bodies an instance holds (REST and MCP lists together) */
export const LIST_BODIES_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Serialised list bodies by cache key (toolset key and format): L1 in memory, L2 in Redis
 * under the tenant's versioned key space, built once for concurrent misses (ListCache).
 */
export class ListBodies {
  /** UTF-8 bytes, ready for the socket */
  private readonly l1 = new ListCache<Buffer>({
    max: 10_000,
    maxSize: LIST_BODIES_MAX_BYTES,
    sizeOf: (body, key) => body.length + key.length,
  });
  private readonly countL1: () => void;
  /** the newest catalog version each tenant's bodies were built for (see `retireOlder`) */
  private readonly newest = new LRUCache<string, number>({ max: 10_000 });

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

  /** how many bodies L1 holds */
  get size(): number {
    return this.l1.size;
  }

  /** bytes L1 holds, counted towards LIST_BODIES_MAX_BYTES */
  get heldBytes(): number {
    return this.l1.heldBytes;
  }

  /**
   * A body is being built for `version` of the tenant's catalog: bodies of its older versions
   * (keys `tenant:version:...`, see toolsetKey) can never be asked for again, so they leave
   * L1 now instead of waiting for the byte bound. A change to the catalog therefore frees the
   * memory of the lists it made stale. Scans L1 only when the tenant's version moved.
   */
  retireOlder(tenantId: string, version: number): void {
    const newest = this.newest.get(tenantId);
    if (newest !== undefined && newest >= version) return;
    this.newest.set(tenantId, version);
    if (newest === undefined && this.l1.size === 0) return;
    const prefix = `${tenantId}:`;
    this.l1.deleteWhere((key) => {
      if (!key.startsWith(prefix)) return false;
      const end = key.indexOf(':', prefix.length);
      return Number(key.slice(prefix.length, end)) < version;
    });
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
