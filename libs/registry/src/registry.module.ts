import { Module } from '@nestjs/common';
import { CatalogService } from './catalog.service';
import { ReportExecutor } from './report-executor';

/** The catalog and the executor. DATABASE and REGISTRY_OPTIONS come from a global module. */
@Module({
  providers: [CatalogService, ReportExecutor],
  exports: [CatalogService, ReportExecutor],
})
export class RegistryModule {}
