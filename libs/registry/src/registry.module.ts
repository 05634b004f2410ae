import { Module } from '@nestjs/common';
import { AccessExplainer } from './access/access-explainer.service';
import { AdmissionVerdictRepository } from './catalog/judge/admission-verdict.repository';
import { VERDICT_STORE } from './catalog/judge/template-verdicts';
import { BuiltinTools } from './listing/builtin-tools';
import { CallActivity } from './execution/call-activity';
import { CallLedger } from './execution/call-ledger';
import { CatalogLoader } from './catalog/load/catalog-loader';
import { CatalogStore } from './catalog/catalog-store';
import { CatalogChangeFeed } from './catalog/load/change-feed';
import { ReportAdmission } from './catalog/judge/report-admission';
import { CatalogRepository } from './catalog/load/catalog.repository';
import { CatalogService } from './listing/catalog.service';
import { DatasourceAdminService } from './datasources/register/datasource-admin.service';
import { DatasourceRepository } from './datasources/datasource.repository';
import { DatasourcePools } from './datasources/run/source-pools';
import { Metrics } from './metrics';
import { ReportAdminService } from './admin/report-admin.service';
import { ResultCache } from './execution/result-cache';
import { ReportExecutor } from './execution/report-executor';
import { ReportUsage } from './execution/report-usage';
import { ReportUsageRepository } from './execution/report-usage.repository';
import { ReportRepository } from './admin/report.repository';
import { SharedCache } from './catalog/cache/shared-cache';
import { ToolCallService } from './execution/tool-calls.service';
import { ConfigurableRegistryModule } from './registry.module-definition';
import { REGISTRY_OPTIONS } from './tokens';

const SERVICES = [
  AccessExplainer,
  BuiltinTools,
  CallActivity,
  CallLedger,
  CatalogChangeFeed,
  CatalogLoader,
  CatalogRepository,
  CatalogService,
  CatalogStore,
  DatasourceAdminService,
  DatasourcePools,
  DatasourceRepository,
  Metrics,
  ReportAdminService,
  ReportAdmission,
  ReportExecutor,
  ReportRepository,
  ReportUsage,
  ReportUsageRepository,
  ResultCache,
  SharedCache,
  ToolCallService,
];

/**
 * The catalog, its caches, access, admin writes and the executor. Registered once, global:
 * `RegistryModule.forRootAsync({ inject, useFactory })` gives REGISTRY_OPTIONS; DATABASE and
 * REDIS come from a global module of the app.
 */
@Module({
  providers: [...SERVICES, { provide: VERDICT_STORE, useClass: AdmissionVerdictRepository }],
  exports: [...SERVICES, REGISTRY_OPTIONS],
})
export class RegistryModule extends ConfigurableRegistryModule {}
