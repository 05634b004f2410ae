import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ChartsModule } from '../charts/charts.module';
import { CatalogEventsController, CatalogEventStreams } from './catalog-events.controller';
import { ConsoleAdminController } from './console-admin.controller';
import { ConsoleAdminService } from './console-admin.service';
import { ConsoleUsageService } from './console-usage.service';

/** The admin console's API: dry runs, previews, live catalog events, review and health reads. */
@Module({
  imports: [AuthModule, ChartsModule],
  controllers: [ConsoleAdminController, CatalogEventsController],
  providers: [ConsoleAdminService, ConsoleUsageService, CatalogEventStreams],
})
export class ConsoleModule {}
