import { SelectionModule } from '@app/selection';
import type { DisclosureOptions, SignalOptions } from '@app/selection';
import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { APP_FILTER, DiscoveryModule } from '@nestjs/core';
import { AdminModule } from './admin/admin.module';
import { MetaToolApiModule } from './admin/meta-tool-api.module';
import { AuthModule } from './auth/auth.module';
import { ConsoleModule } from './console/console.module';
import type { GatewaySettings } from './config/gateway.config';
import { selectionConfig, signalsConfig } from './config/namespaces';
import { CoreModule } from './core.module';
import { HealthModule } from './health/health.module';
import { McpModule } from './mcp/mcp.module';
import { DomainExceptionFilter } from './http/domain-exception.filter';
import { ToolsModule } from './tools/tools.module';

/**
 * Wiring only: the shared core (settings, connections, registry, meta_tool), selection, then
 * one module per feature (tools, MCP, admin, meta_tool's review API, health, console, auth).
 * Each library is registered once, global, from its config namespace; feature modules import
 * none of them. Hot paths and request policies are found by their markers (`@AsHotPath()`,
 * `@AsRequestPolicy()`) through DiscoveryModule.
 */
@Module({
  imports: [
    DiscoveryModule,
    AuthModule,
    SelectionModule.forRootAsync({
      inject: [selectionConfig.KEY, signalsConfig.KEY],
      useFactory: (options: DisclosureOptions, signals: SignalOptions) => ({ ...options, signals }),
    }),
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
    return { module: AppModule, imports: [CoreModule.forRoot(settings), pipeline] };
  }
}
