import { MetaToolModule } from '@app/meta-tool';
import { RegistryModule } from '@app/registry';
import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER } from '@nestjs/core';
import { AdminReportsController } from './admin/admin-reports.controller';
import { MetaToolController } from './admin/meta-tool.controller';
import { AuthModule } from './auth/auth.module';
import { ConsoleModule } from './console/console.module';
import { gatewayConfig, validateEnvironment } from './config/gateway.config';
import { DatabaseModule } from './database/database.module';
import { HealthController } from './health/health.controller';
import { McpModule } from './mcp/mcp.module';
import { DomainExceptionFilter } from './http/domain-exception.filter';
import { AccessController } from './tools/access.controller';
import { ToolCallHotPath } from './tools/tool-call.hot-path';
import { ToolListHotPath } from './tools/tool-list.hot-path';
import { ToolsController } from './tools/tools.controller';

@Module({
  imports: [
    ConfigModule.forRoot({
      isGlobal: true,
      ignoreEnvFile: true,
      load: [gatewayConfig],
      validate: validateEnvironment,
    }),
    DatabaseModule,
    AuthModule,
    RegistryModule,
    MetaToolModule,
    McpModule,
    ConsoleModule,
  ],
  controllers: [
    ToolsController,
    AccessController,
    AdminReportsController,
    MetaToolController,
    HealthController,
  ],
  providers: [
    { provide: APP_FILTER, useClass: DomainExceptionFilter },
    ToolListHotPath,
    ToolCallHotPath,
  ],
})
export class AppModule {}
