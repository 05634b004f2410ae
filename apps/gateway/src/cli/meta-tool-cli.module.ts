import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import type { GatewaySettings } from '../config/gateway.config';
import { CoreModule } from '../core.module';

/**
 * What `npm run meta-tool` needs, wired by Nest as the gateway wires it (CoreModule: settings,
 * the database, the registry and meta_tool). No HTTP, no MCP, no selection.
 */
@Module({})
export class MetaToolCliModule {
  static forRoot(settings: GatewaySettings): DynamicModule {
    return { module: MetaToolCliModule, imports: [CoreModule.forRoot(settings)] };
  }
}
