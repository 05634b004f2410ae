import { Module } from '@nestjs/common';
import { BuiltinTools } from './builtin-tools';
import { CatalogService } from './catalog.service';
import { ReportExecutor } from './report-executor';
import { ToolCallService } from './tool-calls.service';

/** The catalog and the executor. DATABASE and REGISTRY_OPTIONS come from a global module. */
@Module({
  providers: [BuiltinTools, CatalogService, ReportExecutor, ToolCallService],
  exports: [BuiltinTools, CatalogService, ReportExecutor, ToolCallService],
})
export class RegistryModule {}
