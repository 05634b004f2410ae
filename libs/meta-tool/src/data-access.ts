import { cancelBackend } from '@app/db';
import type { DatabaseHandle } from '@app/db';
import {
  CatalogService,
  DATABASE,
  REGISTRY_OPTIONS,
  ReportExecutor,
  sessionLimits,
  sessionSetup,
  activeTraceId,
} from '@app/registry';
import type { Principal, RegistryOptions, TenantCatalog } from '@app/registry';
import type { ReportTool } from '@app/templates';
import { Inject, Injectable } from '@nestjs/common';
import { callerScope, scopeRefusal } from './caller-scope';
import type { CallerScope } from './caller-scope';

/** a generated tool gets at most this many rows per query */
export const MAX_QUERY_ROWS = 1000;
/** queries of one run that may be in flight at once; the rest wait their turn */
export const MAX_QUERIES_IN_FLIGHT = 2;

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

/** Counts, caps and cancels the queries of one run. */
export class RunQueries {
  count = 0;
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly maxQueries: number,
    readonly signal: AbortSignal,
  ) {}

  async slot<T>(fn: () => Promise<T>): Promise<T> {
    this.count += 1;
    if (this.count > this.maxQueries)
      throw new Error(
        `this run made more than ${this.maxQueries} data calls; that is the limit per run`,
      );
    while (this.inFlight >= MAX_QUERIES_IN_FLIGHT) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    if (this.signal.aborted) throw new Error('the run has ended');
    this.inFlight += 1;
    try {
      return await fn();
    } finally {
      this.inFlight -= 1;
      this.waiting.shift()?.();
    }
  }
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
    @Inject(DATABASE) private readonly database: DatabaseHandle,
    @Inject(REGISTRY_OPTIONS) private readonly options: RegistryOptions,
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
      this.executor.call(scope.catalog, report, args, scope.principal),
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
      return await run.slot(() => this.cancellable(tenant, wrapped, params, run.signal));
    } catch (err) {
      throw new Error(`the query failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Read-only like every report query, and cancelled (pg_cancel_backend) if the run ends first. */
  private async cancellable(
    tenant: TenantScope,
    text: string,
    values: unknown[],
    signal: AbortSignal,
  ): Promise<unknown[]> {
    if (this.database.kind !== 'postgres') {
      return (await this.executor.runReadOnly(tenant, text, values)).rows;
    }
    if (signal.aborted) throw new Error('the run has ended');
    return this.database.withSession(async (session) => {
      const preamble = sessionSetup(tenant.id, tenant.dataSchema!, sessionLimits(this.options), {
        traceId: activeTraceId(),
      }).join('; ');
      try {
        await session.script(preamble);
        const pid = Number((await session.query('SELECT pg_backend_pid() AS pid')).rows[0]?.pid);
        const cancel = () => {
          void cancelBackend(this.database.db, pid).catch(() => undefined);
        };
        signal.addEventListener('abort', cancel, { once: true });
        try {
          if (signal.aborted) throw new Error('the run has ended');
          return (
            await session.query(text, values, { timeoutMs: this.options.statementTimeoutMs + 1000 })
          ).rows;
        } finally {
          signal.removeEventListener('abort', cancel);
        }
      } finally {
        await session.query('ROLLBACK').catch(() => undefined);
      }
    });
  }
}
