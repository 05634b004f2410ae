import { registerAs } from '@nestjs/config';
import type { ConfigType } from '@nestjs/config';
import { authSettings } from './auth.config';
import type { AuthSettings, NodeEnv } from './auth.config';
import { datasourceSettings } from './datasource.config';
import type { DatasourceSettings } from './datasource.config';
import { ConfigError, integer, url } from './env';
import type { Env } from './env';
import { mcpSettings } from './mcp.config';
import type { McpSettings } from './mcp.config';
import { metaToolSettings } from './meta-tool.config';
import type { MetaToolSettings } from './meta-tool.config';
import { logSettings, metricsSettings, tracingSettings } from './observability.config';
import type { LogSettings, MetricsSettings, TracingSettings } from './observability.config';
import {
  cacheSettings,
  chartSettings,
  limitSettings,
  reportSettings,
  toolSettings,
  usageSettings,
} from './serving.config';
import type {
  CacheSettings,
  ChartSettings,
  LimitSettings,
  ReportSettings,
  ToolSettings,
  UsageTableSettings,
} from './serving.config';

export { ConfigError } from './env';
export { LOG_LEVELS } from './observability.config';
export type { LogLevel } from './observability.config';
export type * from './auth.config';
export type * from './datasource.config';
export type * from './mcp.config';
export type * from './meta-tool.config';
export type * from './observability.config';
export type * from './serving.config';

/**
 * Every setting the gateway reads, validated once; one namespace per feature, each in its own
 * file (auth, meta_tool, MCP, observability, serving). The only place that reads the environment.
 */
export interface GatewaySettings {
  nodeEnv: NodeEnv;
  host: string;
  port: number;
  /** unset: the embedded PGlite database under dataDir */
  databaseUrl: string | undefined;
  dataDir: string;
  dbPoolSize: number;
  redisUrl: string | undefined;
  /** prefix of every Redis key, so deployments can share one Redis */
  redisKeyPrefix: string;
  auth: AuthSettings;
  /** the gateway's public origin (for resource metadata); default: from the request's Host */
  publicUrl: string | undefined;
  reports: ReportSettings;
  metaTool: MetaToolSettings;
  mcp: McpSettings;
  tools: ToolSettings;
  console: {
    /** the built admin console (`npm run build`), served at /console */
    directory: string;
  };
  cache: CacheSettings;
  charts: ChartSettings;
  usage: UsageTableSettings;
  log: LogSettings;
  metrics: MetricsSettings;
  tracing: TracingSettings;
  limits: LimitSettings;
  /** tenant data sources (issue #30): the key sealing their connections, pools, breakers */
  datasources: DatasourceSettings;
  /** how long SIGTERM waits for in-flight requests before closing anyway */
  shutdownGraceMs: number;
}

function keyPrefix(env: Env): string {
  const raw = env.REDIS_KEY_PREFIX || 'gw';
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(raw)) {
    throw new ConfigError(`REDIS_KEY_PREFIX must be 1-64 letters, digits, _ . or -; got "${raw}"`);
  }
  return raw;
}

function nodeEnv(env: Env): NodeEnv {
  const raw = env.NODE_ENV ?? 'development';
  if (raw !== 'development' && raw !== 'production' && raw !== 'test') {
    throw new ConfigError(`NODE_ENV must be development, production or test; got "${raw}"`);
  }
  return raw;
}

/** Parses the environment; throws a ConfigError naming the first bad variable. */
export function loadSettings(env: Env = process.env): GatewaySettings {
  const mode = nodeEnv(env);
  const dbPoolSize = integer(env, 'DB_POOL_SIZE', 10, 1, 200);
  const limits = limitSettings(env, dbPoolSize);
  return {
    nodeEnv: mode,
    host: env.HOST || '127.0.0.1',
    port: integer(env, 'PORT', 3000, 0, 65535),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: env.DATA_DIR || '.data',
    dbPoolSize,
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: keyPrefix(env),
    auth: authSettings(env, mode),
    publicUrl: url(env, 'PUBLIC_URL', ['https:', 'http:'])?.replace(/\/+$/, ''),
    reports: reportSettings(env),
    metaTool: metaToolSettings(env),
    mcp: mcpSettings(env, limits.maxConnections),
    tools: toolSettings(env),
    console: { directory: env.CONSOLE_DIR || 'apps/console/dist' },
    cache: cacheSettings(env),
    charts: chartSettings(env),
    usage: usageSettings(env),
    log: logSettings(env),
    metrics: metricsSettings(env),
    tracing: tracingSettings(env),
    limits,
    datasources: datasourceSettings(env),
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
