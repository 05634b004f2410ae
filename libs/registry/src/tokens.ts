import type { DatasourceOptions } from './datasources/datasource-options';

/** Injection tokens the gateway provides to the registry. */
export const DATABASE = Symbol('DATABASE');
export const REDIS = Symbol('REDIS');
export const REGISTRY_OPTIONS = Symbol('REGISTRY_OPTIONS');
/** The tenant concurrent-query cap (the app's limits), for queries a call starts besides its own. */
export const TENANT_QUERY_SLOTS = Symbol('TENANT_QUERY_SLOTS');

/**
 * Slots of a tenant's cap on queries running at once (LIMIT_TENANT_CONCURRENT_QUERIES), which
 * plain tool calls take one each. A generated tool's data calls are queries too: each one
 * beyond the one its call's own slot covers takes a slot here while it lives.
 */
export interface TenantQuerySlots {
  /** a slot now, or undefined when the tenant is at its cap; call the release exactly once */
  tryTake(tenantId: string): (() => void) | undefined;
  /** settles the next time a slot of the tenant is released */
  released(tenantId: string): Promise<void>;
}

/** How a caller came to call a tool: from its list, a select answer, or a search_tools hit. */
export type FoundVia = 'listed' | 'selected' | 'searched';

/** The per-tenant usage table (issue #33). */
export interface UsageSettings {
  /** hours older than this many days are deleted; 0 records nothing */
  retentionDays: number;
  /** how often an instance adds what it counted to the table */
  flushMs: number;
}

export interface RegistryOptions {
  statementTimeoutMs: number;
  maxResultBytes: number;
  /** work_mem of a report query, in kB (default 8 MB) */
  workMemKb?: number;
  /** temp_file_limit of a report query, in kB (default 256 MB); 0 leaves the server's */
  tempFileLimitKb?: number;
  /** TTL of L2 (Redis) entries */
  cacheTtlSeconds: number;
  /** while the LISTEN connection is down, a tenant's version is re-read after this long */
  staleAfterMs: number;
  /** tenant data sources (issue #30); absent: no key, default limits */
  datasources?: Partial<DatasourceOptions>;
  /** the per-tenant usage table (issue #33); absent: 30 days, written every 10 s */
  usage?: Partial<UsageSettings>;
  /** the result cache (issue #41); absent: 64 MB per instance, pages up to 1 MB */
  resultCache?: Partial<ResultCacheSettings>;
}

/** The result cache's bounds (RESULT_CACHE_*). */
export interface ResultCacheSettings {
  /** bytes of rows this instance keeps (L1); 0 keeps none here (Redis still shares them) */
  maxBytes: number;
  /** a page whose rows' JSON is larger is never cached, in L1 or in Redis */
  maxEntryBytes: number;
}

export const DEFAULT_REGISTRY_OPTIONS: RegistryOptions = {
  statementTimeoutMs: 5000,
  maxResultBytes: 256 * 1024,
  cacheTtlSeconds: 1800,
  staleAfterMs: 1000,
};
