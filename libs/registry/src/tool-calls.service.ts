import { Injectable } from '@nestjs/common';
import { CatalogService } from './catalog.service';
import type { Principal } from './principal';
import { ReportExecutor } from './report-executor';
import type { ToolCallOutcome } from './report-executor';

/** The one path every protocol (REST, MCP) takes to run a tool for a caller. */
@Injectable()
export class ToolCallService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly executor: ReportExecutor,
  ) {}

  async call(principal: Principal, name: string, args: unknown): Promise<ToolCallOutcome> {
    const { catalog, tool } = await this.catalog.resolve(principal, name);
    switch (tool.kind) {
      case 'report':
        return this.executor.call(catalog, tool.report, args, principal);
      case 'builtin':
        return tool.builtin.call(args, principal);
    }
  }
}
