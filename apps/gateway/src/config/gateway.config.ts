import { registerAs } from '@nestjs/config';
import type { ConfigType } from '@nestjs/config';

/** Every setting the gateway reads, validated once. The only place that reads the environment. */
export interface GatewaySettings {
  nodeEnv: 'development' | 'production' | 'test';
  host: string;
  port: number;
  /** unset: the embedded PGlite database under dataDir */
  databaseUrl: string | undefined;
  dataDir: string;
  dbPoolSize: number;
  redisUrl: string | undefined;
  /** prefix of every Redis key, so deployments can share one Redis */
  redisKeyPrefix: string;
  auth: {
    jwtSecret: string | undefined;
    jwksUrl: string | undefined;
    issuer: string | undefined;
    audience: string | undefined;
    /** token claims a template may bind as `:claim_<name>` */
    boundClaims: string[];
    /** where tenant, user and roles are read from in a token (a dotted path for nested claims) */
    claimNames: { tenant: string; user: string; roles: string };
    /** named in /.well-known/oauth-protected-resource; default: the issuer when set */
    authorizationServers: string[];
    /** the longest a token may live: `exp` at most this many seconds after `iat` (or now) */
    maxTokenAgeSeconds: number;
  };
  /** the gateway's public origin (for resource metadata); default: from the request's Host */
  publicUrl: string | undefined;
  reports: {
    statementTimeoutMs: number;
    maxResultBytes: number;
    /** work_mem of a report query (kB) */
    workMemKb: number;
    /** temp_file_limit of a report query (kB); 0 leaves the server's setting */
    tempFileLimitKb: number;
  };
  metaTool: {
    /** generated tools on disk, one directory per tenant */
    directory: string;
    timeoutMs: number;
    memoryMb: number;
    autoApprove: boolean;
    enabled: boolean;
    cpuMs: number;
    poolSize: number;
    maxConcurrentPerTenant: number;
    queueWaitMs: number;
    maxQueriesPerRun: number;
    recycleAfter: number;
    approvalWaitMs: number;
    maxToolsPerTenant: number;
    maxPendingPerUser: number;
    isolateNetwork: boolean;
  };
  mcp: {
    sessionIdleMs: number;
    /** idle limit of a session with no notification stream open (clients that never close) */
    streamlessIdleMs: number;
    maxSessionsPerUser: number;
    /** the most UTF-8 bytes of rows a tool result's text content (what the model reads) holds */
    textMaxBytes: number;
    /** browser origins allowed to call /mcp (requests without Origin are not browsers) */
    allowedOrigins: string[];
  };
  tools: {
    /** past this many visible tools, lists carry search_tools / describe_tools / call_tool */
    inlineMax: number;
    /** how many tools such a list still carries inline */
    inlineCount: number;
  };
  console: {
    /** the built admin console (`npm run build`), served at /console */
    directory: string;
  };
  cache: {
    /** TTL of Redis (L2) entries */
    ttlSeconds: number;
    /** while LISTEN is down, re-read a tenant's catalog version after this long */
    staleAfterMs: number;
  };
  log: {
    level: LogLevel;
    /** json lines, or pretty (development) */
    format: 'json' | 'pretty';
  };
  metrics: {
    /** METRICS_ENABLED=0: nothing is recorded and /metrics answers 404 */
    enabled: boolean;
    /** when set, GET /metrics needs `Authorization: Bearer <token>` */
    token: string | undefined;
    /** when set, /metrics is served on this port only (not on the API port) */
    port: number | undefined;
  };
  tracing: {
    /** OTLP/HTTP collector base URL; unset: spans are not exported */
    otlpEndpoint: string | undefined;
    serviceName: string;
  };
  limits: {
    /** tool calls per user per minute, all instances together; 0 = no limit */
    userCallsPerMin: number;
    /** tool calls per tenant per minute, all instances together; 0 = no limit */
    tenantCallsPerMin: number;
    /** report queries of one tenant running at once on this instance; 0 = no limit */
    tenantConcurrentQueries: number;
    /** largest request body accepted */
    bodyBytes: number;
    /** meta_tool proposals per author per day, all instances together; 0 = no limit */
    proposalsPerAuthorPerDay: number;
  };
  /** how long SIGTERM waits for in-flight requests before closing anyway */
  shutdownGraceMs: number;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}; got "${raw}"`);
  }
  return value;
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  return urlValue(name, raw, protocols);
}

function urlValue(name: string, raw: string, protocols: string[]): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL; got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}; got "${parsed.protocol}"`);
  }
  return raw;
}

function keyPrefix(env: Env): string {
  const raw = env.REDIS_KEY_PREFIX || 'gw';
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(raw)) {
    throw new ConfigError(`REDIS_KEY_PREFIX must be 1-64 letters, digits, _ . or -; got "${raw}"`);
  }
  return raw;
}

function flag(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0') return false;
  if (raw === '1') return true;
  throw new ConfigError(`${name} must be 1 or 0; got "${raw}"`);
}

/** A switch that is on unless set to 0. */
function flagOn(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '1') return true;
  if (raw === '0') return false;
  throw new ConfigError(`${name} must be 1 or 0; got "${raw}"`);
}

function origins(env: Env): string[] {
  const raw = env.MCP_ALLOWED_ORIGINS ?? 'http://localhost:6274,http://127.0.0.1:6274';
  const list = raw
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of list) {
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      throw new ConfigError(
        `MCP_ALLOWED_ORIGINS entries must be origins like http://localhost:6274; got "${origin}"`,
      );
    }
    if (parsed.origin !== origin) {
      throw new ConfigError(
        `MCP_ALLOWED_ORIGINS entries must be bare origins (scheme://host[:port]); got "${origin}"`,
      );
    }
  }
  return list;
}

function nodeEnv(env: Env): GatewaySettings['nodeEnv'] {
  const raw = env.NODE_ENV ?? 'development';
  if (raw !== 'development' && raw !== 'production' && raw !== 'test') {
    throw new ConfigError(`NODE_ENV must be development, production or test; got "${raw}"`);
  }
  return raw;
}

function auth(env: Env, mode: GatewaySettings['nodeEnv']): GatewaySettings['auth'] {
  const jwtSecret = env.AUTH_JWT_SECRET || undefined;
  const jwksUrl = url(env, 'AUTH_JWKS_URL', ['https:', 'http:']);
  if (jwtSecret !== undefined && jwtSecret.length < 32) {
    throw new ConfigError('AUTH_JWT_SECRET must be at least 32 characters');
  }
  if (mode === 'production' && !jwtSecret && !jwksUrl) {
    throw new ConfigError(
      'NODE_ENV=production refuses the generated dev secret: set AUTH_JWT_SECRET or AUTH_JWKS_URL',
    );
  }
  const claims = (env.AUTH_BOUND_CLAIMS ?? 'region')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  const bad = claims.find((c) => !/^[a-z][a-z0-9_]*$/.test(c));
  if (bad)
    throw new ConfigError(`AUTH_BOUND_CLAIMS entries must match ^[a-z][a-z0-9_]*$; got "${bad}"`);
  const issuer = env.AUTH_ISSUER || undefined;
  const servers = (env.AUTH_AUTHORIZATION_SERVERS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const server of servers) urlValue('AUTH_AUTHORIZATION_SERVERS', server, ['https:', 'http:']);
  return {
    jwtSecret,
    jwksUrl,
    issuer,
    audience: env.AUTH_AUDIENCE || undefined,
    boundClaims: claims,
    claimNames: {
      tenant: claimPath(env, 'AUTH_TENANT_CLAIM', 'tenant'),
      user: claimPath(env, 'AUTH_USER_CLAIM', 'sub'),
      roles: claimPath(env, 'AUTH_ROLES_CLAIM', 'roles'),
    },
    authorizationServers: servers.length > 0 ? servers : issuer ? [issuer] : [],
    maxTokenAgeSeconds: integer(env, 'AUTH_MAX_TOKEN_AGE_SECONDS', 86_400, 60, 30 * 86_400),
  };
}

function claimPath(env: Env, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  if (!/^[A-Za-z_][A-Za-z0-9_:/-]*(\.[A-Za-z_][A-Za-z0-9_:/-]*)*$/.test(raw) || raw.length > 200)
    throw new ConfigError(
      `${name} must be a claim name or a dotted path like realm_access.roles; got "${raw}"`,
    );
  return raw;
}

function tools(env: Env): GatewaySettings['tools'] {
  const inlineMax = integer(env, 'TOOLS_INLINE_MAX', 40, 1, 100_000);
  const inlineCount = integer(env, 'TOOLS_INLINE_COUNT', Math.min(10, inlineMax), 0, 100_000);
  if (inlineCount > inlineMax)
    throw new ConfigError(
      `TOOLS_INLINE_COUNT must be at most TOOLS_INLINE_MAX (${inlineMax}); got "${inlineCount}"`,
    );
  return { inlineMax, inlineCount };
}

function logSettings(env: Env): GatewaySettings['log'] {
  const level = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(level))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${level}"`);
  const format = env.LOG_FORMAT || 'json';
  if (format !== 'json' && format !== 'pretty')
    throw new ConfigError(`LOG_FORMAT must be json or pretty; got "${format}"`);
  return { level, format };
}

function metricsSettings(env: Env): GatewaySettings['metrics'] {
  const token = env.METRICS_TOKEN || undefined;
  if (token !== undefined && token.length < 16)
    throw new ConfigError('METRICS_TOKEN must be at least 16 characters');
  const port = env.METRICS_PORT ? integer(env, 'METRICS_PORT', 0, 1, 65535) : undefined;
  return { enabled: flagOn(env, 'METRICS_ENABLED'), token, port };
}

function limitSettings(env: Env): GatewaySettings['limits'] {
  return {
    userCallsPerMin: integer(env, 'LIMIT_USER_CALLS_PER_MIN', 0, 0, 1_000_000),
    tenantCallsPerMin: integer(env, 'LIMIT_TENANT_CALLS_PER_MIN', 0, 0, 10_000_000),
    tenantConcurrentQueries: integer(env, 'LIMIT_TENANT_CONCURRENT_QUERIES', 0, 0, 1000),
    bodyBytes: integer(env, 'LIMIT_BODY_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    proposalsPerAuthorPerDay: integer(env, 'LIMIT_PROPOSALS_PER_AUTHOR_PER_DAY', 0, 0, 100_000),
  };
}

/** Parses the environment; throws a ConfigError naming the first bad variable. */
export function loadSettings(env: Env = process.env): GatewaySettings {
  const mode = nodeEnv(env);
  return {
    nodeEnv: mode,
    host: env.HOST || '127.0.0.1',
    port: integer(env, 'PORT', 3000, 0, 65535),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: env.DATA_DIR || '.data',
    dbPoolSize: integer(env, 'DB_POOL_SIZE', 10, 1, 200),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: keyPrefix(env),
    auth: auth(env, mode),
    publicUrl: url(env, 'PUBLIC_URL', ['https:', 'http:'])?.replace(/\/+$/, ''),
    reports: {
      statementTimeoutMs: integer(env, 'REPORT_STATEMENT_TIMEOUT_MS', 5000, 100, 300_000),
      maxResultBytes: integer(env, 'REPORT_MAX_RESULT_BYTES', 256 * 1024, 1024, 16 * 1024 * 1024),
      workMemKb: integer(env, 'REPORT_WORK_MEM_KB', 8 * 1024, 64, 1024 * 1024),
      tempFileLimitKb: integer(env, 'REPORT_TEMP_FILE_LIMIT_KB', 256 * 1024, 0, 1024 * 1024 * 1024),
    },
    metaTool: {
      directory: env.GENERATED_TOOLS_DIR || `${env.DATA_DIR || '.data'}/generated-tools`,
      timeoutMs: integer(env, 'META_TOOL_TIMEOUT_MS', 5000, 100, 120_000),
      memoryMb: integer(env, 'META_TOOL_MEMORY_MB', 64, 16, 4096),
      autoApprove: flag(env, 'META_TOOL_AUTO_APPROVE'),
      enabled: flagOn(env, 'META_TOOL_ENABLED'),
      cpuMs: integer(
        env,
        'META_TOOL_CPU_MS',
        Math.floor(integer(env, 'META_TOOL_TIMEOUT_MS', 5000, 100, 120_000) / 2),
        10,
        120_000,
      ),
      poolSize: integer(env, 'META_TOOL_POOL_SIZE', 4, 1, 64),
      maxConcurrentPerTenant: integer(env, 'META_TOOL_MAX_CONCURRENT_PER_TENANT', 2, 1, 64),
      queueWaitMs: integer(env, 'META_TOOL_QUEUE_WAIT_MS', 2000, 0, 60_000),
      maxQueriesPerRun: integer(env, 'META_TOOL_MAX_QUERIES_PER_RUN', 20, 1, 1000),
      recycleAfter: integer(env, 'META_TOOL_RECYCLE_AFTER', 500, 1, 1_000_000),
      approvalWaitMs: integer(env, 'META_TOOL_APPROVAL_WAIT_MS', 0, 0, 120_000),
      maxToolsPerTenant: integer(env, 'META_TOOL_MAX_TOOLS_PER_TENANT', 200, 0, 100_000),
      maxPendingPerUser: integer(env, 'META_TOOL_MAX_PENDING_PER_USER', 5, 0, 10_000),
      isolateNetwork: flagOn(env, 'META_TOOL_NETWORK_ISOLATION'),
    },
    mcp: {
      sessionIdleMs: integer(env, 'MCP_SESSION_IDLE_MS', 30 * 60_000, 1000, 24 * 3600_000),
      streamlessIdleMs: integer(
        env,
        'MCP_SESSION_STREAMLESS_IDLE_MS',
        5 * 60_000,
        1000,
        24 * 3600_000,
      ),
      maxSessionsPerUser: integer(env, 'MCP_MAX_SESSIONS_PER_USER', 10, 1, 1000),
      textMaxBytes: integer(env, 'TOOL_TEXT_MAX_BYTES', 64 * 1024, 2048, 16 * 1024 * 1024),
      allowedOrigins: origins(env),
    },
    tools: tools(env),
    console: { directory: env.CONSOLE_DIR || 'apps/console/dist' },
    cache: {
      ttlSeconds: integer(env, 'CACHE_TTL_SECONDS', 1800, 1, 7 * 24 * 3600),
      staleAfterMs: integer(env, 'CATALOG_STALE_AFTER_MS', 1000, 0, 600_000),
    },
    log: logSettings(env),
    metrics: metricsSettings(env),
    tracing: {
      otlpEndpoint: url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']),
      serviceName: env.OTEL_SERVICE_NAME || 'report-tool-gateway',
    },
    limits: limitSettings(env),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
  };
}

/** The settings' injection token (`@Inject(gatewayConfig.KEY)`); parses when loaded as is. */
export const gatewayConfig = registerAs('gateway', () => loadSettings());
export type GatewayConfig = ConfigType<typeof gatewayConfig>;

/** The same token over settings parsed once, at start-up (`ConfigModule.forRoot({ load })`). */
export function gatewayConfigOf(settings: GatewaySettings): typeof gatewayConfig {
  return registerAs('gateway', () => settings);
}
