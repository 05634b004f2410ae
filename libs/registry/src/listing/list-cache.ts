import { LRUCache } from 'lru-cache';

/** Builds a list on a miss; called once however many callers miss at the same time. */
export type ListBuild<V> = () => Promise<V>;

export interface ListCacheOptions<V> {
  /** most lists held */
  max: number;
  /** most bytes held, with `sizeOf` */
  maxSize?: number;
  sizeOf?: (value: V, key: string) => number;
}

/**
 * Serialised tool lists by toolset key (L1), bounded by count and size. `get` answers
 * from memory without any I/O (the fast lanes); `fetch` builds a missing list, and
 * concurrent misses of one key merge into one build (lru-cache `fetchMethod`). A build
 * that `clear` overtook still answers its callers but is not kept.
 */
export class ListCache<V extends object> {
  private readonly cache: LRUCache<string, V, ListBuild<V>>;

  constructor(options: ListCacheOptions<V>) {
    const { sizeOf } = options;
    this.cache = new LRUCache<string, V, ListBuild<V>>({
      max: options.max,
      ...(options.maxSize && sizeOf
        ? { maxSize: options.maxSize, sizeCalculation: (v: V, k: string) => sizeOf(v, k) }
        : {}),
      ignoreFetchAbort: true,
      fetchMethod: (_key, _stale, { context }) => context(),
    });
  }

  get(key: string): V | undefined {
    return this.cache.get(key);
  }

  async fetch(key: string, build: ListBuild<V>): Promise<V> {
    const value = await this.cache.fetch(key, { context: build });
    // fetchMethod never resolves undefined: build() returns a value or throws
    return value as V;
  }

  clear(): void {
    this.cache.clear();
  }

  /** Drops the lists whose key `dead` names (a build in flight still answers its callers). */
  deleteWhere(dead: (key: string) => boolean): number {
    let dropped = 0;
    for (const key of [...this.cache.keys()]) if (dead(key) && this.cache.delete(key)) dropped++;
    return dropped;
  }

  get size(): number {
    return this.cache.size;
  }

  /** bytes held as `sizeOf` counts them (0 without a size bound) */
  get heldBytes(): number {
    return this.cache.calculatedSize ?? 0;
  }
}
