import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { McpCallHotPath } from './mcp-call.hot-path';
import { McpListHotPath } from './mcp-list.hot-path';
import { McpServerFactory } from './mcp-server.factory';
import { McpSessions } from './mcp-sessions.service';
import { McpController } from './mcp.controller';

@Module({
  imports: [AuthModule],
  controllers: [McpController],
  providers: [McpServerFactory, McpSessions, McpListHotPath, McpCallHotPath],
  exports: [McpListHotPath, McpCallHotPath],
})
export class McpModule {}
