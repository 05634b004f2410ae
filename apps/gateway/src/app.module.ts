import { MetaToolModule } from '@app/meta-tool';
import { RegistryModule } from '@app/registry';
import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER } from '@nestjs/core';
import { AdminReportsController } from './admin/admin-reports.controller';
import { AuthGuard } from './auth/auth.guard';
import { TokenVerifier } from './auth/token-verifier';
import { gatewayConfig, validateEnvironment } from './config/gateway.config';
import { DatabaseModule } from './database/database.module';
import { HealthController } from './health/health.controller';
import { DomainExceptionFilter } from './http/domain-exception.filter';
import { AccessController } from './tools/access.controller';
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
    RegistryModule,
    MetaToolModule,
  ],
  controllers: [ToolsController, AccessController, AdminReportsController, HealthController],
  providers: [TokenVerifier, AuthGuard, { provide: APP_FILTER, useClass: DomainExceptionFilter }],
})
export class AppModule {}
