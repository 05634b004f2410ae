import { CatalogService, ReportExecutor } from '@app/registry';
import type { Principal, TenantCatalog } from '@app/registry';
import type { ReportTool } from '@app/templates';
import { Injectable } from '@nestjs/common';
import { callerScope, scopeRefusal } from './caller-scope';
import type { CallerScope } from './caller-scope';
import type { RunQueries } from './run-queries';

/** a generated tool gets at most this many rows per query */
export const MAX_QUERY_ROWS = 1000;

export interface TenantScope {
  id: string;
  dataSchema: string | null;
  allowedTables: string[];
}

/** Everything a run may reach, fixed when the run starts: the caller, their reports, their tables. */
export interface RunScope {
  principal: Principal;
  catalog: TenantCatalog;
  reports: Map<string, ReportTool>;
  sql: CallerScope;
}

/**
 * The data doors of a generated tool. `ctx.report(id, args)` runs a report exactly as the caller
 * would (visibility, claims, limits); `ctx.query(sql, params)` runs guarded read-only SQL over
 * the caller's tables only (see caller-scope). Each run's queries are counted and capped, at
 * most two run at once, and those still running when the run ends are cancelled in Postgres.
 * Refusals are sentences the tool (and the model behind it) can act on.
 */
@Injectable()
export class GeneratedDataAccess {
  constructor(
    private readonly executor: ReportExecutor,
    private readonly catalogs: CatalogService,
  ) {}

  /** The run's scope, from the caller's own visible set. */
  async scopeFor(principal: Principal): Promise<RunScope> {
    const visible = await this.catalogs.visibleSet(principal);
    const reports = new Map<string, ReportTool>();
    for (const tool of visible.tools) {
      if (tool.kind === 'report') reports.set(tool.report.report.id, tool.report);
    }
    return {
      principal,
      catalog: visible.catalog,
      reports,
      sql: callerScope(visible.catalog, [...reports.values()]),
    };
  }

  async report(scope: RunScope, id: string, args: unknown, run: RunQueries): Promise<unknown> {
    const report = scope.reports.get(id.startsWith('query_report_') ? id.slice(13) : id);
    if (!report)
      throw new Error(
        `no report "${id}" among the reports the caller may use (${[...scope.reports.keys()].join(', ') || 'none'})`,
      );
    const outcome = await run.slot(() =>
      this.executor.call(scope.catalog, report, args, scope.principal, run.signal),
    );
    if (outcome.is_error) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
    return outcome.result;
  }

  async query(scope: RunScope, sql: string, params: unknown, run: RunQueries): Promise<unknown[]> {
    const tenant = scope.catalog.tenant;
    if (!tenant.dataSchema) throw new Error('this tenant has no datasource');
    if (!Array.isArray(params)) throw new Error('ctx.query(sql, params): params must be an array');
    const refusal = scopeRefusal(sql, scope.sql, {
      defaultSchema: tenant.dataSchema,
      tables: tenant.allowedTables,
    });
    if (refusal) throw new Error(refusal);
    const wrapped = `SELECT * FROM (\n${sql.replace(/;\s*$/, '')}\n) AS q LIMIT ${MAX_QUERY_ROWS}`;
    try {
      const result = await run.slot(() =>
        this.executor.runReadOnly(tenant, wrapped, params, undefined, undefined, run.signal),
      );
      return result.rows;
    } catch (err) {
      throw new Error(`the query failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
