import type { DatabaseHandle } from '@app/db';
import { DATABASE, REGISTRY_OPTIONS } from '@app/registry';
import type { RegistryOptions } from '@app/registry';
import { initSqlParser } from '@app/templates';
import { Global, Inject, Logger, Module } from '@nestjs/common';
import type { OnApplicationShutdown } from '@nestjs/common';
import { gatewayConfig } from '../config/gateway.config';
import type { GatewayConfig } from '../config/gateway.config';
import { openDatabase } from './open-database';

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
      provide: REGISTRY_OPTIONS,
      inject: [gatewayConfig.KEY],
      useFactory: (config: GatewayConfig): RegistryOptions => ({ ...config.reports }),
    },
  ],
  exports: [DATABASE, REGISTRY_OPTIONS],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  async onApplicationShutdown(): Promise<void> {
    await this.database.close();
  }
}
