import { MetaToolModule } from '@app/meta-tool';
import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { gatewayConfigOf } from '../config/gateway.config';
import type { GatewaySettings } from '../config/gateway.config';
import { DatabaseModule } from '../database/database.module';

/**
 * What `npm run meta-tool` needs, wired by Nest as the gateway wires it: settings, the
 * database, the registry (through MetaToolModule) and meta_tool. No HTTP, no MCP.
 */
@Module({})
export class MetaToolCliModule {
  static forRoot(settings: GatewaySettings): DynamicModule {
    return {
      module: MetaToolCliModule,
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          load: [gatewayConfigOf(settings)],
        }),
        DatabaseModule,
        MetaToolModule,
      ],
    };
  }
}
