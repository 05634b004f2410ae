import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { AdminDatasourcesController } from './admin-datasources.controller';
import { AdminReportsController } from './admin-reports.controller';
import { GeneratedToolsController } from './generated-tools.controller';

/** The admin API: report metadata and generated tools (`/v1/admin/...`). */
@Module({
  imports: [AuthModule],
  controllers: [AdminReportsController, AdminDatasourcesController, GeneratedToolsController],
})
export class AdminModule {}
