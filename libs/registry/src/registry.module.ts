import { Module } from '@nestjs/common';
import { AccessExplainer } from './access-explainer.service';
import { BuiltinTools } from './builtin-tools';
import { CallActivity } from './call-activity';
import { CatalogLoader } from './catalog/catalog-loader';
import { CatalogStore } from './catalog/catalog-store';
import { CatalogChangeFeed } from './catalog/change-feed';
import { ReportAdmission } from './catalog/report-admission';
import { CatalogRepository } from './catalog.repository';
import { CatalogService } from './catalog.service';
import { Metrics } from './metrics';
import { ReportAdminService } from './report-admin.service';
import { ReportExecutor } from './report-executor';
import { ReportRepository } from './report.repository';
import { SharedCache } from './shared-cache';
import { ToolCallService } from './tool-calls.service';

const SERVICES = [
  AccessExplainer,
  BuiltinTools,
  CallActivity,
  CatalogChangeFeed,
  CatalogLoader,
  CatalogRepository,
  CatalogService,
  CatalogStore,
  Metrics,
  ReportAdminService,
  ReportAdmission,
  ReportExecutor,
  ReportRepository,
  SharedCache,
  ToolCallService,
];

/** The catalog, its caches, access, admin writes and the executor. DATABASE, REDIS and
 * REGISTRY_OPTIONS come from a global module of the app. */
@Module({ providers: SERVICES, exports: SERVICES })
export class RegistryModule {}
