import { argumentBoundsProblem } from '@app/templates';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { CallLedger } from './call-ledger';
import { CatalogService } from '../listing/catalog.service';
import type { Principal } from '../access/principal';
import { ReportExecutor } from './report-executor';
import { toolFailure } from './tool-outcome';
import { RegistryError } from '../errors';
import type { ToolCallOutcome } from './tool-outcome';
import { GENERATED_TOOL_RUNNER } from '../catalog/model/generated-tools';
import type { GeneratedToolRunner } from '../catalog/model/generated-tools';

/**
 * The refusal of arguments nested too deep or too big, or undefined: what every path that runs
 * a tool (this service, the call fast lane) checks before any recursive code meets them.
 */
export function argumentsOutOfBounds(name: string, args: unknown): ToolCallOutcome | undefined {
  const problem = argumentBoundsProblem(args);
  return problem === undefined ? undefined : toolFailure(name, 'INVALID_ARGUMENTS', problem);
}

/** The one path every protocol (REST, MCP) takes to run a tool for a caller. */
@Injectable()
export class ToolCallService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly executor: ReportExecutor,
    @Optional()
    @Inject(GENERATED_TOOL_RUNNER)
    private readonly generated: GeneratedToolRunner | null = null,
    @Optional() @Inject(CallLedger) private readonly ledger: CallLedger | null = null,
  ) {}

  /**
   * The answer to a call whose arguments could not be read (a JSON string that does not
   * parse): the same 404 as a call for a tool the caller cannot use, else INVALID_ARGUMENTS.
   */
  async refuse(principal: Principal, name: string, message: string): Promise<ToolCallOutcome> {
    await this.catalog.resolve(principal, name);
    return toolFailure(name, 'INVALID_ARGUMENTS', message);
  }

  async call(principal: Principal, name: string, args: unknown): Promise<ToolCallOutcome> {
    const startedAt = performance.now();
    let outcome: ToolCallOutcome | undefined;
    try {
      outcome = await this.run(principal, name, args);
      return outcome;
    } catch (err) {
      // a tool the caller cannot use (404) is no use of any tool
      if (err instanceof RegistryError && err.code === 'TOOL_NOT_FOUND') {
        this.ledger?.refused(principal);
        throw err;
      }
      this.ledger?.ended(principal, name, undefined, startedAt);
      throw err;
    } finally {
      if (outcome) this.ledger?.ended(principal, name, outcome, startedAt);
    }
  }

  private async run(principal: Principal, name: string, args: unknown): Promise<ToolCallOutcome> {
    const { catalog, tool } = await this.catalog.resolve(principal, name);
    // Arguments enter here from every protocol: bounded before any recursive code meets them.
    const outOfBounds = argumentsOutOfBounds(name, args);
    if (outOfBounds) return outOfBounds;
    switch (tool.kind) {
      case 'report':
        return this.executor.call(catalog, tool.report, args, principal);
      case 'builtin':
        return tool.builtin.call(args, principal);
      case 'generated': {
        // rule 4: arguments reach `run` as given (bounded in depth and size by the runner)
        if (
          args !== undefined &&
          (args === null || typeof args !== 'object' || Array.isArray(args))
        )
          return toolFailure(name, 'INVALID_ARGUMENTS', 'arguments must be a JSON object');
        if (!this.generated) {
          return toolFailure(name, 'QUERY_FAILED', 'generated tools cannot run on this instance');
        }
        return this.generated.run(
          catalog.tenant,
          tool.generated,
          (args ?? {}) as Record<string, unknown>,
          principal,
        );
      }
    }
  }
}
