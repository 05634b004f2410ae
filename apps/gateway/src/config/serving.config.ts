import { ConfigError, decimal, flagOn, integer } from './env';
import type { Env } from './env';

/** Report queries: REPORT_*. */
export interface ReportSettings {
  statementTimeoutMs: number;
  maxResultBytes: number;
  /** work_mem of a report query (kB) */
  workMemKb: number;
  /** temp_file_limit of a report query (kB); 0 leaves the server's setting */
  tempFileLimitKb: number;
}

/** Tool lists: TOOLS_*. */
export interface ToolSettings {
  /** past this many visible tools, lists carry search_tools / describe_tools / call_tool */
  inlineMax: number;
  /** how many tools such a list still carries inline */
  inlineCount: number;
  /** the ranking signals beside BM25: SELECTION_* */
  signals: SignalSettings;
}

/** Signals fused with BM25 by select and search_tools (docs/tool-selection.md). */
export interface SignalSettings {
  /** word vectors (libs/selection/data/word-vectors.bin) */
  vectors: boolean;
  /** reciprocal rank fusion constant */
  fusionK: number;
  vectorWeight: number;
  /** the tenant's own past questions that led to a tool */
  history: boolean;
  historyWeight: number;
  historyHalfLifeDays: number;
  historyMaxAgeDays: number;
  /** distinct users a tool needs before past questions count for colleagues */
  historyMinUsers: number;
  /** history records one user adds per day (per instance) */
  historyPerUserPerDay: number;
}

/** Catalog caches: CACHE_TTL_SECONDS, CATALOG_STALE_AFTER_MS. */
export interface CacheSettings {
  /** TTL of Redis (L2) entries */
  ttlSeconds: number;
  /** while LISTEN is down, re-read a tenant's catalog version after this long */
  staleAfterMs: number;
  /** the result cache (issue #41): bytes this instance keeps, and the largest page it keeps */
  resultMaxBytes: number;
  resultMaxEntryBytes: number;
}

/** SVG charts drawn by the gateway: CHART_*, CHARTS_*. */
export interface ChartSettings {
  /** charts of one tenant waiting or being drawn at once; more are refused at once */
  perTenant: number;
  /** how long a chart may take from being asked to its SVG (waiting included) */
  timeoutMs: number;
}

/** The per-tenant usage table: USAGE_*. */
export interface UsageTableSettings {
  /** hours older than this many days are deleted; 0 records no usage */
  retentionDays: number;
  /** how often an instance adds what it counted to the table */
  flushMs: number;
}

/** Fairness limits and the request body cap: LIMIT_*. */
export interface LimitSettings {
  /** tool calls per user per minute, all instances together; 0 = no limit */
  userCallsPerMin: number;
  /** tool calls per tenant per minute, all instances together; 0 = no limit */
  tenantCallsPerMin: number;
  /**
   * report queries of one tenant running at once on this instance; 0 = no limit. Default:
   * three quarters of DB_POOL_SIZE (at least 1), so one tenant never takes the whole pool
   */
  tenantConcurrentQueries: number;
  /** how long a call over that limit waits for a slot before it is refused (0: refused at once) */
  tenantQueueWaitMs: number;
  /** largest request body accepted */
  bodyBytes: number;
  /** meta_tool proposals per author per day, all instances together; 0 = no limit */
  proposalsPerAuthorPerDay: number;
  /** open client connections on this instance; past it the oldest still sending a head go first */
  maxConnections: number;
  /** connections that have not yet carried an authenticated request, at most */
  unauthenticatedConnections: number;
  /** time a client has to send its request headers */
  headersTimeoutMs: number;
  /** time a client has to send its whole request (headers and body) */
  requestTimeoutMs: number;
  /** how long an idle keep-alive connection stays open */
  keepAliveTimeoutMs: number;
}

export function reportSettings(env: Env): ReportSettings {
  return {
    statementTimeoutMs: integer(env, 'REPORT_STATEMENT_TIMEOUT_MS', 5000, 100, 300_000),
    maxResultBytes: integer(env, 'REPORT_MAX_RESULT_BYTES', 256 * 1024, 1024, 16 * 1024 * 1024),
    workMemKb: integer(env, 'REPORT_WORK_MEM_KB', 8 * 1024, 64, 1024 * 1024),
    tempFileLimitKb: integer(env, 'REPORT_TEMP_FILE_LIMIT_KB', 256 * 1024, 0, 1024 * 1024 * 1024),
  };
}

export function cacheSettings(env: Env): CacheSettings {
  return {
    ttlSeconds: integer(env, 'CACHE_TTL_SECONDS', 1800, 1, 7 * 24 * 3600),
    staleAfterMs: integer(env, 'CATALOG_STALE_AFTER_MS', 1000, 0, 600_000),
    resultMaxBytes: integer(env, 'RESULT_CACHE_MAX_BYTES', 64 * 1024 * 1024, 0, 64 * 1024 ** 3),
    resultMaxEntryBytes: integer(
      env,
      'RESULT_CACHE_MAX_ENTRY_BYTES',
      1024 * 1024,
      1024,
      256 * 1024 ** 2,
    ),
  };
}

export function chartSettings(env: Env): ChartSettings {
  return {
    perTenant: integer(env, 'CHARTS_PER_TENANT', 4, 1, 1000),
    timeoutMs: integer(env, 'CHART_TIMEOUT_MS', 5000, 100, 600_000),
  };
}

export function usageSettings(env: Env): UsageTableSettings {
  return {
    retentionDays: integer(env, 'USAGE_RETENTION_DAYS', 30, 0, 3650),
    flushMs: integer(env, 'USAGE_FLUSH_MS', 10_000, 100, 3_600_000),
  };
}

export function toolSettings(env: Env): ToolSettings {
  const inlineMax = integer(env, 'TOOLS_INLINE_MAX', 40, 1, 100_000);
  const inlineCount = integer(env, 'TOOLS_INLINE_COUNT', Math.min(10, inlineMax), 0, 100_000);
  if (inlineCount > inlineMax)
    throw new ConfigError(
      `TOOLS_INLINE_COUNT must be at most TOOLS_INLINE_MAX (${inlineMax}); got "${inlineCount}"`,
    );
  return { inlineMax, inlineCount, signals: signalSettings(env) };
}

export function signalSettings(env: Env): SignalSettings {
  const halfLife = decimal(env, 'SELECTION_HISTORY_HALF_LIFE_DAYS', 30, 0.01, 3650);
  return {
    vectors: flagOn(env, 'SELECTION_VECTORS'),
    fusionK: integer(env, 'SELECTION_FUSION_K', 10, 1, 1000),
    vectorWeight: decimal(env, 'SELECTION_VECTOR_WEIGHT', 0.1, 0, 10),
    history: flagOn(env, 'SELECTION_HISTORY'),
    historyWeight: decimal(env, 'SELECTION_HISTORY_WEIGHT', 0.3, 0, 10),
    historyHalfLifeDays: halfLife,
    historyMaxAgeDays: decimal(env, 'SELECTION_HISTORY_MAX_AGE_DAYS', 180, halfLife, 3650),
    historyMinUsers: integer(env, 'SELECTION_HISTORY_MIN_USERS', 3, 1, 1000),
    historyPerUserPerDay: integer(env, 'SELECTION_HISTORY_PER_USER_PER_DAY', 20, 1, 100_000),
  };
}

/** `dbPoolSize`: DB_POOL_SIZE, from which the tenant concurrency default is derived */
export function limitSettings(env: Env, dbPoolSize = 10): LimitSettings {
  const maxConnections = integer(env, 'LIMIT_CONNECTIONS', 2048, 1, 1_000_000);
  return {
    userCallsPerMin: integer(env, 'LIMIT_USER_CALLS_PER_MIN', 0, 0, 1_000_000),
    tenantCallsPerMin: integer(env, 'LIMIT_TENANT_CALLS_PER_MIN', 0, 0, 10_000_000),
    tenantConcurrentQueries: integer(
      env,
      'LIMIT_TENANT_CONCURRENT_QUERIES',
      Math.max(1, Math.floor((dbPoolSize * 3) / 4)),
      0,
      1000,
    ),
    tenantQueueWaitMs: integer(env, 'LIMIT_TENANT_QUEUE_WAIT_MS', 3000, 0, 600_000),
    bodyBytes: integer(env, 'LIMIT_BODY_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    proposalsPerAuthorPerDay: integer(env, 'LIMIT_PROPOSALS_PER_AUTHOR_PER_DAY', 0, 0, 100_000),
    maxConnections,
    unauthenticatedConnections: integer(
      env,
      'LIMIT_UNAUTHENTICATED_CONNECTIONS',
      Math.max(1, Math.floor(maxConnections / 2)),
      1,
      maxConnections,
    ),
    headersTimeoutMs: integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 5_000, 100, 600_000),
    requestTimeoutMs: integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    keepAliveTimeoutMs: integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
  };
}
