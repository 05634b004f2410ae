import { AsyncLocalStorage } from 'node:async_hooks';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { CatalogRepository } from '../catalog/load/catalog.repository';
import { tenantScope } from '../catalog/cache/l2-values';
import { SharedCache } from '../catalog/cache/shared-cache';
import { Metrics } from '../metrics';
import { REGISTRY_OPTIONS } from '../tokens';
import type { RegistryOptions, ResultCacheSettings } from '../tokens';
import { openResult, resultKey, sealResult } from './result-values';
import type { CachedPage, ResultKeyParts } from './result-values';
import { pageRowsJson, toolPage } from './tool-outcome';
import type { ToolCallOutcome, ToolResultPage } from './tool-outcome';

/** How a caller wants the cache used: `refresh` runs the SQL and stores its fresh answer. */
export type CachePreference = 'use' | 'refresh';

const preference = new AsyncLocalStorage<CachePreference>();

/**
 * Runs `fn` with the caller's cache preference (REST `Cache-Control: no-cache`, MCP's
 * `_meta["gateway/cache"]: "no-cache"`): the executor reads it, so no signature between the
 * transport and the executor has to carry it.
 */
export function withCachePreference<T>(pref: CachePreference, fn: () => T): T {
  return preference.run(pref, fn);
}

const DEFAULTS: ResultCacheSettings = { maxBytes: 64 * 1024 * 1024, maxEntryBytes: 1024 * 1024 };

/** What one fetch settles to: a page to answer from, or a failure every waiter shares. */
type Entry = { page: CachedPage } | { failure: ToolCallOutcome };

interface FetchContext {
  ttlMs: number;
  /** the SQL, run once for every caller waiting on this key (single flight) */
  load: () => Promise<ToolCallOutcome>;
  /** set by the fetch: where the answer came from */
  source?: 'l2' | 'sql';
}

/**
 * The result cache (issue #41): a report that sets `cache_ttl_seconds` is answered again within
 * that window without a query. Two levels like the catalog: an in-process LRU bounded in bytes,
 * whose `fetchMethod` merges concurrent misses of one key into one load (100 identical calls
 * run the SQL once), and Redis with the TTL so every replica shares an answer. Redis values are
 * sealed and checked on read (result-values.ts); a bad one is a miss.
 */
@Injectable()
export class ResultCache {
  private readonly logger = new Logger('ResultCache');
  private readonly settings: ResultCacheSettings;
  private readonly l1: LRUCache<string, Entry, FetchContext>;
  private databaseId?: Promise<string>;

  constructor(
    private readonly shared: SharedCache,
    private readonly repository: CatalogRepository,
    private readonly metrics: Metrics,
    @Inject(REGISTRY_OPTIONS) options: RegistryOptions,
  ) {
    this.settings = { ...DEFAULTS, ...options.resultCache };
    this.l1 = new LRUCache<string, Entry, FetchContext>({
      // lru-cache wants a positive bound; 0 keeps at most one tiny entry per key in flight
      maxSize: Math.max(1, this.settings.maxBytes),
      sizeCalculation: (entry) => ('page' in entry ? entry.page.rowsJson.length + 256 : 256),
      ttlAutopurge: false,
      fetchMethod: (key, _stale, { context, options: fetched }) => this.load(key, context, fetched),
    });
    metrics.describe(
      'gateway_result_cache_total',
      'report calls on a cached report, by where the answer came from (l1, l2, sql, bypass)',
    );
    metrics.gaugeCollected(
      'gateway_result_cache_bytes',
      "bytes of rows this instance's result cache holds (L1)",
      (set) => set(this.l1.calculatedSize),
      [],
    );
  }

  /** The scope of a tenant incarnation's keys (the metadata database's identity in it). */
  async scope(tenant: { id: string; createdAt: string }): Promise<string> {
    this.databaseId ??= this.repository.databaseIdentity().catch(() => {
      this.databaseId = undefined;
      return 'unidentified';
    });
    return tenantScope(await this.databaseId, tenant);
  }

  /**
   * The answer for `parts`: from this instance (L1), from Redis (L2), or from `load` (the SQL),
   * whose page is kept for `ttlSeconds` when it is rows and not larger than the entry bound.
   */
  async answer(
    toolName: string,
    tenantId: string,
    parts: ResultKeyParts,
    ttlSeconds: number,
    load: () => Promise<ToolCallOutcome>,
  ): Promise<ToolCallOutcome> {
    const labels = { tenant: tenantId, report: parts.reportId };
    const key = resultKey(parts);
    const context: FetchContext = { ttlMs: ttlSeconds * 1000, load };
    const hadIt = this.l1.has(key);
    const entry = await this.l1.fetch(key, {
      context,
      forceRefresh: preference.getStore() === 'refresh',
    });
    const from =
      preference.getStore() === 'refresh' ? 'bypass' : hadIt ? 'l1' : (context.source ?? 'l1');
    this.metrics.inc('gateway_result_cache_total', { ...labels, from });
    // a page lru-cache could not keep (larger than its whole bound) still answers this caller
    if (!entry) return load();
    if ('failure' in entry) return entry.failure;
    return answerOf(toolName, entry.page, from !== 'sql' && from !== 'bypass');
  }

  /** The fetchMethod: Redis first, then the SQL; failures are shared, not kept. */
  private async load(
    key: string,
    context: FetchContext,
    fetched: { ttl?: number },
  ): Promise<Entry> {
    const now = Date.now();
    if (preference.getStore() !== 'refresh') {
      const kept = await this.shared.read(key, (raw) => openResult(raw, key, now));
      if (kept) {
        context.source = 'l2';
        fetched.ttl = Math.max(1, kept.expiresAt - now);
        return { page: kept };
      }
    }
    context.source = 'sql';
    const outcome = await context.load();
    const page =
      outcome.is_error || outcome.text !== undefined ? undefined : cacheable(outcome.result);
    if (!page || page.rowsJson.length > this.settings.maxEntryBytes) {
      fetched.ttl = 1; // shared with the callers waiting now, then gone
      return { failure: outcome };
    }
    const cached: CachedPage = {
      ...page,
      cachedAt: new Date(now).toISOString(),
      expiresAt: now + context.ttlMs,
    };
    fetched.ttl = context.ttlMs;
    if (this.shared.enabled)
      await this.shared
        .set(key, sealResult(key, cached), Math.max(1, Math.ceil(context.ttlMs / 1000)))
        .catch((err: Error) => this.logger.warn(`a result could not be shared: ${err.message}`));
    return { page: cached };
  }
}

/** The page and its rows' JSON, as the executor built them. */
function cacheable(result: ToolResultPage): Omit<CachedPage, 'cachedAt' | 'expiresAt'> {
  return {
    columns: result.columns,
    page: result.page,
    page_size: result.page_size,
    has_more: result.has_more,
    rows: result.rows,
    rowsJson: pageRowsJson(result),
  };
}

/** A tool outcome from a cached page; `cached_at` when the rows were not read for this call. */
function answerOf(toolName: string, page: CachedPage, fromCache: boolean): ToolCallOutcome {
  const outcome = toolPage(
    toolName,
    {
      columns: page.columns,
      rows: page.rows,
      page: page.page,
      page_size: page.page_size,
      has_more: page.has_more,
    },
    page.rowsJson,
  );
  if (!fromCache || outcome.is_error || outcome.text !== undefined) return outcome;
  return { ...outcome, cached_at: page.cachedAt };
}
