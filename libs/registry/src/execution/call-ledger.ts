import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Principal } from '../access/principal';
import { CallActivity } from './call-activity';
import { ReportUsage } from './report-usage';
import type { ToolCallOutcome } from './tool-outcome';

/**
 * Where every path that runs a tool (ToolCallService, the REST and MCP call fast lanes) notes
 * a finished call: the tenant's minute-by-minute activity (health screen) and the per-tool
 * usage table (usage view). `outcome` undefined: the call threw.
 */
@Injectable()
export class CallLedger {
  constructor(
    @Optional() @Inject(CallActivity) private readonly activity: CallActivity | null = null,
    @Optional() @Inject(ReportUsage) private readonly usage: ReportUsage | null = null,
  ) {}

  ended(
    principal: Principal,
    name: string,
    outcome: ToolCallOutcome | undefined,
    startedAt: number,
  ): void {
    const failed = outcome === undefined || outcome.is_error;
    this.activity?.record(principal.tenantId, failed);
    this.usage?.record(principal, name, {
      failed,
      empty: outcome !== undefined && !outcome.is_error && isEmptyFirstPage(outcome.result),
      cached: outcome !== undefined && !outcome.is_error && 'cached_at' in outcome,
      ms: performance.now() - startedAt,
    });
  }

  /** A call refused before any tool ran (a tool the caller cannot use): activity only. */
  refused(principal: Principal): void {
    this.activity?.record(principal.tenantId, true);
  }
}

/** A report's first page that came back with no rows. */
function isEmptyFirstPage(result: unknown): boolean {
  const page = result as { rows?: unknown; page?: unknown };
  return Array.isArray(page.rows) && page.rows.length === 0 && page.page === 1;
}
