import { CatalogService, ReportExecutor } from '@app/registry';
import type { Principal, TenantCatalog, TenantQuerySlots } from '@app/registry';
import type { ReportTool } from '@app/templates';
import { Injectable } from '@nestjs/common';
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

/** What a run's queries count against besides the run's own limits. */
export interface RunQueryBudget {
  tenantId: string;
  /** the tenant's concurrent-query cap; absent: uncapped (the CLI, specs) */
  slots?: TenantQuerySlots;
  /** queries the run's call already holds a slot for (1 for a tool call, 0 for an approval) */
  covered: number;
}

const UNCAPPED: TenantQuerySlots = {
  tryTake: () => () => undefined,
  released: () => new Promise<void>(() => undefined),
};

/**
 * Counts, caps and cancels the queries of one run. Every query is tied to the run's signal:
 * when the run ends (returns, throws, times out) the ones still running are cancelled in
 * Postgres. While it lives, each query holds a slot of the tenant's concurrent-query cap: the
 * first `covered` ride on the call's own slot, every other one takes a slot of its own and
 * waits (until the run ends) while the tenant is at its cap.
 */
export class RunQueries {
  count = 0;
  private inFlight = 0;
  private coveredInUse = 0;
  private readonly waiting: Array<() => void> = [];
  /** queries waiting for the call's own slot to come free */
  private readonly coveredWaiters: Array<() => void> = [];
  private readonly live = new Set<Promise<unknown>>();
  private readonly ended: Promise<void>;

  constructor(
    readonly maxQueries: number,
    readonly signal: AbortSignal,
    private readonly budget: RunQueryBudget = { tenantId: '', covered: Infinity },
  ) {
    this.ended = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  slot<T>(fn: () => Promise<T>): Promise<T> {
    this.count += 1;
    if (this.count > this.maxQueries)
      return Promise.reject(
        new Error(
          `this run made more than ${this.maxQueries} data calls; that is the limit per run`,
        ),
      );
    const work = this.run(fn);
    this.live.add(work);
    const forget = () => this.live.delete(work);
    work.then(forget, forget);
    return work;
  }

  /** Settles once every query this run started has ended (after the run, they are cancelled). */
  async settled(): Promise<void> {
    while (this.live.size > 0) await Promise.allSettled([...this.live]);
  }

  private async run<T>(fn: () => Promise<T>): Promise<T> {
    while (this.inFlight >= MAX_QUERIES_IN_FLIGHT) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.inFlight += 1;
    let release: (() => void) | undefined;
    try {
      release = await this.tenantSlot();
      return await fn();
    } finally {
      release?.();
      this.inFlight -= 1;
      this.waiting.shift()?.();
    }
  }

  /** A slot of the tenant's cap for one query, waited for while the run lives. */
  private async tenantSlot(): Promise<() => void> {
    const slots = this.budget.slots ?? UNCAPPED;
    for (;;) {
      if (this.signal.aborted) throw new Error('the run has ended');
      if (this.coveredInUse < this.budget.covered) {
        this.coveredInUse += 1;
        let released = false;
        return () => {
          if (released) return;
          released = true;
          this.coveredInUse -= 1;
          for (const wake of this.coveredWaiters.splice(0)) wake();
        };
      }
      const release = slots.tryTake(this.budget.tenantId);
      if (release) return release;
      await Promise.race([
        slots.released(this.budget.tenantId),
        new Promise<void>((resolve) => this.coveredWaiters.push(resolve)),
        this.ended,
      ]);
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
