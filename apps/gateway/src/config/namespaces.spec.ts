import path from 'node:path';
import { ConfigModule } from '@nestjs/config';
import { Test } from '@nestjs/testing';
import { gatewayConfig, loadSettings } from './gateway.config';
import {
  configNamespaces,
  databaseConfig,
  FEATURE_NAMESPACES,
  metaToolConfig,
  redisConfig,
  registryConfig,
  selectionConfig,
} from './namespaces';

const env = {
  NODE_ENV: 'test',
  DATABASE_URL: 'postgres://db.example/gw',
  DB_POOL_SIZE: '7',
  REDIS_URL: 'redis://cache.example:6379',
  REDIS_KEY_PREFIX: 'blue',
  REPORT_STATEMENT_TIMEOUT_MS: '1500',
  REPORT_WORK_MEM_KB: '2048',
  CACHE_TTL_SECONDS: '60',
  CATALOG_STALE_AFTER_MS: '250',
  GENERATED_TOOLS_DIR: 'relative/tools',
  META_TOOL_POOL_SIZE: '3',
  TOOLS_INLINE_MAX: '12',
  TOOLS_INLINE_COUNT: '4',
  DATASOURCE_KEY: 'a'.repeat(64),
  DATASOURCE_CONNECT_TIMEOUT_MS: '900',
};

describe('config namespaces', () => {
  const settings = loadSettings(env);

  it('translate the settings into each library option set', () => {
    expect(registryConfig.of(settings)()).toEqual({
      statementTimeoutMs: 1500,
      maxResultBytes: 256 * 1024,
      workMemKb: 2048,
      tempFileLimitKb: 256 * 1024,
      cacheTtlSeconds: 60,
      staleAfterMs: 250,
      usage: { retentionDays: 30, flushMs: 10_000 },
      resultCache: { maxBytes: 64 * 1024 * 1024, maxEntryBytes: 1024 * 1024 },
      datasources: {
        key: Buffer.alloc(32, 0xaa),
        previousKeys: [],
        connectTimeoutMs: 900,
        connectionBudget: 100,
        tenantConnections: 20,
        maxPool: 10,
        maxStatementTimeoutMs: 60_000,
        networks: expect.objectContaining({ spec: ['public'] }),
        identityClaims: [],
        idleCloseMs: 60_000,
        breakerFailures: 3,
        breakerCooldownMs: 5000,
      },
    });
    const metaTool = metaToolConfig.of(settings)();
    expect(metaTool).toEqual({ ...settings.metaTool, directory: path.resolve('relative/tools') });
    expect(metaTool.poolSize).toBe(3);
    expect(selectionConfig.of(settings)()).toEqual({ inlineMax: 12, inlineCount: 4 });
    expect(databaseConfig.of(settings)()).toEqual({
      databaseUrl: 'postgres://db.example/gw',
      dataDir: '.data',
      dbPoolSize: 7,
    });
    expect(redisConfig.of(settings)()).toEqual({
      redisUrl: 'redis://cache.example:6379',
      redisKeyPrefix: 'blue',
    });
  });

  it('read the settings parsed once, never the environment', () => {
    const before = process.env.REPORT_STATEMENT_TIMEOUT_MS;
    process.env.REPORT_STATEMENT_TIMEOUT_MS = 'not a number';
    try {
      expect(registryConfig.of(settings)().statementTimeoutMs).toBe(1500);
    } finally {
      if (before === undefined) delete process.env.REPORT_STATEMENT_TIMEOUT_MS;
      else process.env.REPORT_STATEMENT_TIMEOUT_MS = before;
    }
  });

  it('each have their own token, distinct from the whole settings', () => {
    const keys = FEATURE_NAMESPACES.map((n) => n.KEY);
    expect(new Set([...keys, gatewayConfig.KEY]).size).toBe(keys.length + 1);
    for (const n of FEATURE_NAMESPACES) expect(n.of(settings).KEY).toBe(n.KEY);
  });

  it('are served by ConfigModule under their tokens, beside the whole settings', async () => {
    const ref = await Test.createTestingModule({
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          load: configNamespaces(settings),
        }),
      ],
    }).compile();
    try {
      expect(ref.get(gatewayConfig.KEY)).toBe(settings);
      expect(ref.get(registryConfig.KEY)).toEqual(registryConfig.of(settings)());
      expect(ref.get(selectionConfig.KEY)).toEqual({ inlineMax: 12, inlineCount: 4 });
      expect(ref.get(redisConfig.KEY)).toEqual(redisConfig.of(settings)());
    } finally {
      await ref.close();
    }
  });
});
