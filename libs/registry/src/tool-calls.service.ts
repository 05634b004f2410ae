import { Inject, Injectable, Optional } from '@nestjs/common';
import { CallActivity } from './call-activity';
import { CatalogService } from './catalog.service';
import type { Principal } from './principal';
import { ReportExecutor } from './report-executor';
import type { ToolCallOutcome } from './report-executor';
import { GENERATED_TOOL_RUNNER } from './generated-tools';
import type { GeneratedToolRunner } from './generated-tools';

/** The one path every protocol (REST, MCP) takes to run a tool for a caller. */
@Injectable()
export class ToolCallService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly executor: ReportExecutor,
    @Optional()
    @Inject(GENERATED_TOOL_RUNNER)
    private readonly generated: GeneratedToolRunner | null = null,
    @Optional() @Inject(CallActivity) private readonly activity: CallActivity | null = null,
  ) {}

  async call(principal: Principal, name: string, args: unknown): Promise<ToolCallOutcome> {
    let failed = true;
    try {
      const outcome = await this.run(principal, name, args);
      failed = outcome.is_error;
      return outcome;
    } finally {
      this.activity?.record(principal.tenantId, failed);
    }
  }

  private async run(principal: Principal, name: string, args: unknown): Promise<ToolCallOutcome> {
    const { catalog, tool } = await this.catalog.resolve(principal, name);
    switch (tool.kind) {
      case 'report':
        return this.executor.call(catalog, tool.report, args, principal);
      case 'builtin':
        return tool.builtin.call(args, principal);
      case 'generated': {
        const checked = tool.generated.arguments.check(args);
        if (!checked.ok)
          return {
            tool: name,
            is_error: true,
            error: { code: 'INVALID_ARGUMENTS', message: checked.message },
          };
        if (!this.generated) {
          return {
            tool: name,
            is_error: true,
            error: { code: 'QUERY_FAILED', message: 'generated tools cannot run on this instance' },
          };
        }
        return this.generated.run(catalog.tenant, tool.generated, checked.args, principal);
      }
    }
  }
}
