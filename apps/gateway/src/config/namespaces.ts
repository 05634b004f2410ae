import path from 'node:path';
import type { MetaToolOptions } from '@app/meta-tool';
import type { RegistryOptions } from '@app/registry';
import type { DisclosureOptions, SignalOptions } from '@app/selection';
import { getConfigToken, registerAs } from '@nestjs/config';
import type { ConfigFactory, ConfigFactoryKeyHost, ConfigObject } from '@nestjs/config';
import { datasourceKey } from '../datasources/datasource-key';
import { gatewayConfigOf } from './gateway.config';
import type { GatewaySettings } from './gateway.config';

/**
 * One config namespace per feature that takes options: a view of the settings parsed once at
 * start-up, under its own token (`@Inject(registryConfig.KEY)`, `inject: [registryConfig.KEY]`).
 * The translation from settings to a library's options lives here and nowhere else.
 */
export interface Namespace<T extends ConfigObject> {
  readonly KEY: string;
  /** the namespace's factory over settings already parsed (for `ConfigModule.forRoot({ load })`) */
  of(settings: GatewaySettings): (() => T) & ConfigFactoryKeyHost<T>;
}

function namespace<T extends ConfigObject>(
  name: string,
  view: (settings: GatewaySettings) => T,
): Namespace<T> {
  return {
    KEY: getConfigToken(name),
    of: (settings) => registerAs(name, (): T => view(settings)),
  };
}

export type DatabaseSettings = Pick<GatewaySettings, 'databaseUrl' | 'dataDir' | 'dbPoolSize'>;
export type RedisSettings = Pick<GatewaySettings, 'redisUrl' | 'redisKeyPrefix'>;

/** Postgres or the embedded PGlite: DATABASE_URL, DATA_DIR, DB_POOL_SIZE. */
export const databaseConfig = namespace('database', (s): DatabaseSettings => ({
  databaseUrl: s.databaseUrl,
  dataDir: s.dataDir,
  dbPoolSize: s.dbPoolSize,
}));

/** The shared (L2) cache's connection: REDIS_URL, REDIS_KEY_PREFIX. */
export const redisConfig = namespace('redis', (s): RedisSettings => ({
  redisUrl: s.redisUrl,
  redisKeyPrefix: s.redisKeyPrefix,
}));

/** RegistryModule's options: REPORT_*, CACHE_TTL_SECONDS, CATALOG_STALE_AFTER_MS, RESULT_CACHE_*, DATASOURCE_*, USAGE_*. */
export const registryConfig = namespace('registry', (s): RegistryOptions => ({
  ...s.reports,
  cacheTtlSeconds: s.cache.ttlSeconds,
  staleAfterMs: s.cache.staleAfterMs,
  resultCache: { maxBytes: s.cache.resultMaxBytes, maxEntryBytes: s.cache.resultMaxEntryBytes },
  usage: s.usage,
  datasources: {
    ...s.datasources,
    key: datasourceKey(s),
  },
}));

/** MetaToolModule's options: META_TOOL_*, GENERATED_TOOLS_DIR (made absolute). */
export const metaToolConfig = namespace('metaTool', (s): MetaToolOptions => ({
  ...s.metaTool,
  directory: path.resolve(s.metaTool.directory),
}));

/** SelectionModule's disclosure thresholds: TOOLS_INLINE_MAX, TOOLS_INLINE_COUNT. */
export const selectionConfig = namespace('selection', (s): DisclosureOptions => ({
  inlineMax: s.tools.inlineMax,
  inlineCount: s.tools.inlineCount,
}));

/** The ranking signals of select and search_tools: SELECTION_*. */
export const signalsConfig = namespace('selectionSignals', (s): SignalOptions => s.tools.signals);

export const FEATURE_NAMESPACES = [
  databaseConfig,
  redisConfig,
  registryConfig,
  metaToolConfig,
  selectionConfig,
  signalsConfig,
] as const;

/** What ConfigModule loads: the whole settings ('gateway') and every feature namespace. */
export function configNamespaces(settings: GatewaySettings): ConfigFactory[] {
  return [gatewayConfigOf(settings), ...FEATURE_NAMESPACES.map((n) => n.of(settings))];
}
