import type { DatabaseHandle } from '@app/db';
import { DATABASE, REDIS } from '@app/registry';
import { initSqlParser } from '@app/templates';
import { Global, Inject, Logger, Module } from '@nestjs/common';
import type { OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { databaseConfig, redisConfig } from '../config/namespaces';
import type { DatabaseSettings, RedisSettings } from '../config/namespaces';
import { openDatabase, withoutPassword } from './open-database';

/**
 * The connections only: Postgres (or the embedded PGlite) and the optional Redis, from the
 * `database` and `redis` config namespaces. Libraries' options come from their own namespaces
 * (CoreModule).
 */
@Global()
@Module({
  providers: [
    {
      provide: DATABASE,
      inject: [databaseConfig.KEY],
      useFactory: async (settings: DatabaseSettings): Promise<DatabaseHandle> => {
        await initSqlParser();
        const { handle, description } = await openDatabase(settings);
        new Logger('Database').log(`using ${description}`);
        return handle;
      },
    },
    {
      provide: REDIS,
      inject: [redisConfig.KEY],
      useFactory: (settings: RedisSettings): Redis | null => {
        if (!settings.redisUrl) {
          new Logger('SharedCache').log(
            'REDIS_URL is not set: no shared (L2) cache, memory and Postgres only',
          );
          return null;
        }
        new Logger('SharedCache').log(
          `using Redis at ${withoutPassword(settings.redisUrl)} (key prefix ${settings.redisKeyPrefix}:): shared L2 cache, limits and MCP sessions; /readyz reports its state`,
        );
        // No offline queue: while Redis is down a call fails at once and the cache steps aside.
        // A command timeout: a Redis that is up but does not answer (overloaded, a half-open
        // connection) is a miss after a second too, not a request that waits for it.
        return new Redis(settings.redisUrl, {
          keyPrefix: `${settings.redisKeyPrefix}:`,
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          connectTimeout: 1000,
          commandTimeout: 1000,
          retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
        });
      },
    },
  ],
  exports: [DATABASE, REDIS],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  async onApplicationShutdown(): Promise<void> {
    await this.database.close();
  }
}
