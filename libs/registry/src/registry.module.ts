import { Module } from '@nestjs/common';
import { AccessExplainer } from './access-explainer.service';
import { BuiltinTools } from './builtin-tools';
import { CatalogStore } from './catalog-store';
import { CatalogService } from './catalog.service';
import { Metrics } from './metrics';
import { SharedCache } from './shared-cache';
import { ReportExecutor } from './report-executor';
import { ToolCallService } from './tool-calls.service';

/** The catalog and the executor. DATABASE and REGISTRY_OPTIONS come from a global module. */
@Module({
  providers: [
    AccessExplainer,
    BuiltinTools,
    CatalogStore,
    Metrics,
    SharedCache,
    CatalogService,
    ReportExecutor,
    ToolCallService,
  ],
  exports: [
    AccessExplainer,
    BuiltinTools,
    CatalogStore,
    Metrics,
    SharedCache,
    CatalogService,
    ReportExecutor,
    ToolCallService,
  ],
})
export class RegistryModule {}
