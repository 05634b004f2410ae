import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ChartsModule } from '../charts/charts.module';
import { AccessController } from './access.controller';
import { SelectController } from './select.controller';
import { ToolCallHotPath } from './tool-call.hot-path';
import { ToolCallsController } from './tool-calls.controller';
import { ToolListHotPath } from './tool-list.hot-path';
import { ToolsController } from './tools.controller';

/** The REST tool API: lists, calls, provider tool-call batches, select, explain, fast lanes. */
@Module({
  imports: [AuthModule, ChartsModule],
  controllers: [SelectController, ToolsController, ToolCallsController, AccessController],
  providers: [ToolListHotPath, ToolCallHotPath],
})
export class ToolsModule {}
