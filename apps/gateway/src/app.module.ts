import { MetaToolModule } from '@app/meta-tool';
import { RegistryModule } from '@app/registry';
import { SelectionModule } from '@app/selection';
import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER, DiscoveryModule } from '@nestjs/core';
import { AdminReportsController } from './admin/admin-reports.controller';
import { GeneratedToolsController } from './admin/generated-tools.controller';
import { MetaToolController } from './admin/meta-tool.controller';
import { AuthModule } from './auth/auth.module';
import { ClientRegistrationController, WellKnownController } from './auth/well-known.controller';
import { ConsoleModule } from './console/console.module';
import { gatewayConfig, gatewayConfigOf } from './config/gateway.config';
import type { GatewayConfig, GatewaySettings } from './config/gateway.config';
import { DatabaseModule } from './database/database.module';
import { HealthController } from './health/health.controller';
import { McpModule } from './mcp/mcp.module';
import { DomainExceptionFilter } from './http/domain-exception.filter';
import { AccessController } from './tools/access.controller';
import { ToolCallHotPath } from './tools/tool-call.hot-path';
import { ToolCallsController } from './tools/tool-calls.controller';
import { ToolListHotPath } from './tools/tool-list.hot-path';
import { SelectController } from './tools/select.controller';
import { ToolsController } from './tools/tools.controller';

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
    McpModule,
    ConsoleModule,
  ],
  controllers: [
    SelectController,
    ToolsController,
    ToolCallsController,
    AccessController,
    AdminReportsController,
    MetaToolController,
    GeneratedToolsController,
    HealthController,
    WellKnownController,
    ClientRegistrationController,
  ],
  providers: [
    { provide: APP_FILTER, useClass: DomainExceptionFilter },
    ToolListHotPath,
    ToolCallHotPath,
  ],
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
