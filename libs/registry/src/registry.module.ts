import { Module } from '@nestjs/common';
import { AccessExplainer } from './access-explainer.service';
import { BuiltinTools } from './builtin-tools';
import { CallActivity } from './call-activity';
import { CatalogStore } from './catalog-store';
import { CatalogService } from './catalog.service';
import { Metrics } from './metrics';
import { ReportAdminService } from './report-admin.service';
import { ReportExecutor } from './report-executor';
import { SharedCache } from './shared-cache';
import { ToolCallService } from './tool-calls.service';

const SERVICES = [
  AccessExplainer,
  BuiltinTools,
  CallActivity,
  CatalogService,
  CatalogStore,
  Metrics,
  ReportAdminService,
  ReportExecutor,
  SharedCache,
  ToolCallService,
];

/** The catalog, its caches, access, admin writes and the executor. DATABASE, REDIS and
 * REGISTRY_OPTIONS come from a global module of the app. */
@Module({ providers: SERVICES, exports: SERVICES })
export class RegistryModule {}
