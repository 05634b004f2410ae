import type { DatabaseHandle } from '@app/db';
import { DATABASE, REDIS, REGISTRY_OPTIONS } from '@app/registry';
import type { RegistryOptions } from '@app/registry';
import { META_TOOL_OPTIONS } from '@app/meta-tool';
import type { MetaToolOptions } from '@app/meta-tool';
import { initSqlParser } from '@app/templates';
import path from 'node:path';
import { Global, Inject, Logger, Module } from '@nestjs/common';
import type { OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { gatewayConfig } from '../config/gateway.config';
import type { GatewayConfig } from '../config/gateway.config';
import { openDatabase } from './open-database';

/** Postgres (or the embedded PGlite), optional Redis, and the registry's settings. */
@Global()
@Module({
  providers: [
    {
      provide: DATABASE,
      inject: [gatewayConfig.KEY],
      useFactory: async (config: GatewayConfig): Promise<DatabaseHandle> => {
        await initSqlParser();
        const { handle, description } = await openDatabase(config);
        new Logger('Database').log(`using ${description}`);
        return handle;
      },
    },
    {
      provide: REDIS,
      inject: [gatewayConfig.KEY],
      useFactory: (config: GatewayConfig): Redis | null => {
        if (!config.redisUrl) {
          new Logger('SharedCache').log(
            'REDIS_URL is not set: no shared (L2) cache, memory and Postgres only',
          );
          return null;
        }
        // No offline queue: while Redis is down a call fails at once and the cache steps aside.
        // A command timeout: a Redis that is up but does not answer (overloaded, a half-open
        // connection) is a miss after a second too, not a request that waits for it.
        return new Redis(config.redisUrl, {
          keyPrefix: `${config.redisKeyPrefix}:`,
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          connectTimeout: 1000,
          commandTimeout: 1000,
          retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
        });
      },
    },
    {
      provide: META_TOOL_OPTIONS,
      inject: [gatewayConfig.KEY],
      useFactory: (config: GatewayConfig): MetaToolOptions => ({
        ...config.metaTool,
        directory: path.resolve(config.metaTool.directory),
      }),
    },
    {
      provide: REGISTRY_OPTIONS,
      inject: [gatewayConfig.KEY],
      useFactory: (config: GatewayConfig): RegistryOptions => ({
        ...config.reports,
        cacheTtlSeconds: config.cache.ttlSeconds,
        staleAfterMs: config.cache.staleAfterMs,
      }),
    },
  ],
  exports: [DATABASE, REDIS, REGISTRY_OPTIONS, META_TOOL_OPTIONS],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  async onApplicationShutdown(): Promise<void> {
    await this.database.close();
  }
}
