import { MetaToolModule } from '@app/meta-tool';
import { RegistryModule } from '@app/registry';
import { SelectionModule } from '@app/selection';
import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER, DiscoveryModule } from '@nestjs/core';
import { AdminModule } from './admin/admin.module';
import { MetaToolApiModule } from './admin/meta-tool-api.module';
import { AuthModule } from './auth/auth.module';
import { ConsoleModule } from './console/console.module';
import { gatewayConfig, gatewayConfigOf } from './config/gateway.config';
import type { GatewayConfig, GatewaySettings } from './config/gateway.config';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { McpModule } from './mcp/mcp.module';
import { DomainExceptionFilter } from './http/domain-exception.filter';
import { ToolsModule } from './tools/tools.module';

/**
 * Wiring only: the libraries, then one module per feature (tools, MCP, admin, meta_tool's
 * review API, health, console, auth). Hot paths and request policies are found by their
 * markers (`@AsHotPath()`, `@AsRequestPolicy()`) through DiscoveryModule.
 */
@Module({
  imports: [
    DiscoveryModule,
    DatabaseModule,
    AuthModule,
    RegistryModule,
    SelectionModule.forRoot(
      (config: GatewayConfig) => ({
        inlineMax: config.tools.inlineMax,
        inlineCount: config.tools.inlineCount,
      }),
      [gatewayConfig.KEY],
    ),
    MetaToolModule,
    ToolsModule,
    AdminModule,
    MetaToolApiModule,
    HealthModule,
    McpModule,
    ConsoleModule,
  ],
  providers: [{ provide: APP_FILTER, useClass: DomainExceptionFilter }],
})
export class AppModule {
  /** The app over settings parsed once (by the caller, at start-up), plus the request pipeline. */
  static forRoot(settings: GatewaySettings, pipeline: DynamicModule): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          load: [gatewayConfigOf(settings)],
        }),
        pipeline,
      ],
    };
  }
}
