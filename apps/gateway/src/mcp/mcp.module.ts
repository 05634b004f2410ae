import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { McpCallHotPath } from './session/mcp-call.hot-path';
import { McpListHotPath } from './session/mcp-list.hot-path';
import { ChartViewResource } from './view/chart-view.resource';
import { McpServerFactory } from './shared/mcp-server.factory';
import { McpSessions } from './session/mcp-sessions.service';
import { McpController } from './mcp.controller';
import { McpListenStreams } from './stateless/mcp-listen';
import { McpStateless } from './stateless/mcp-stateless.service';
import { McpTasks } from './tasks/mcp-tasks.service';
import { McpStatelessListHotPath } from './stateless/mcp-stateless-list.hot-path';

@Module({
  imports: [AuthModule],
  controllers: [McpController],
  providers: [
    McpServerFactory,
    ChartViewResource,
    McpSessions,
    McpListHotPath,
    McpCallHotPath,
    McpStateless,
    McpListenStreams,
    McpTasks,
    McpStatelessListHotPath,
  ],
  exports: [McpListHotPath, McpCallHotPath],
})
export class McpModule {}
