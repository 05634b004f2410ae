import { REGISTRY_OPTIONS, TENANT_QUERY_SLOTS, toolFailure, toolText } from '@app/registry';
import type {
  GeneratedTool,
  GeneratedToolRunner,
  Principal,
  RegistryOptions,
  TenantQuerySlots,
  ToolCallOutcome,
} from '@app/registry';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import { cut } from '../contract';
import { GeneratedDataAccess } from './data-access';
import { RunQueries } from './run-queries';
import { CallStatsBatch } from './call-stats';
import { redactValues, RunValues } from './error-redaction';
import { RunLog } from './run-log';
import { GeneratedToolStatsRepository } from '../store/generated-tool-stats.repository';
import type { RunScope, TenantScope } from './data-access';
import { META_TOOL_OPTIONS, resolveOptions } from '../options';
import { hostArguments, hostResultJson } from './host-call-bounds';
import { argumentsJson } from './run-arguments';
import type { MetaToolOptions, ResolvedMetaToolOptions } from '../options';
import { SandboxPool } from './sandbox/sandbox';
import type { SandboxLayers, SandboxOutcome } from './sandbox/sandbox';
import { sha256, ToolFiles } from '../store/tool-files';

export interface SandboxRun {
  scope: RunScope;
  tenantId: string;
  name: string;
  source: string;
  call?: { args: unknown };
  /** concurrent-query slots the run's caller already holds (a tool call holds one) */
  coveredQueries?: number;
  /** collects what the run reads, so its error can be recorded without the caller's rows */
  values?: RunValues;
}

/** `ctx.user` of a run: the caller, with the roles they hold in the tenant's catalog. */
function runUser({ principal, catalog }: RunScope) {
  return {
    user_id: principal.userId,
    tenant: principal.tenantId,
    roles: [...catalog.access.effectiveRoles(principal)],
    claims: { ...principal.claims },
  };
}

/** What the model is told for each way a run can fail. */
function failureMessage(name: string, outcome: Extract<SandboxOutcome, { ok: false }>): string {
  return `${name} failed (${outcome.stage}): ${outcome.message}`;
}

/**
 * Runs generated tools in the sandbox pool, as their caller: `ctx.user` is the caller,
 * `ctx.report` and `ctx.query` are scoped to the caller's reports. Arguments reach `run` as
 * given (the tool's schema guides the model only; `run` defends itself), bounded in depth and
 * size where they enter. The model sees the result cut to 400 characters; the structured
 * result carries all of it, up to the report byte cap.
 */
@Injectable()
export class SandboxedToolRunner implements GeneratedToolRunner, OnModuleDestroy {
  private readonly logger = new Logger('GeneratedTools');
  private readonly files: ToolFiles;
  readonly options: ResolvedMetaToolOptions;
  readonly pool: SandboxPool;
  private readonly stats: CallStatsBatch;

  constructor(
    @Inject(META_TOOL_OPTIONS) options: MetaToolOptions,
    private readonly data: GeneratedDataAccess,
    @Inject(REGISTRY_OPTIONS) private readonly registry: RegistryOptions,
    statsRepository: GeneratedToolStatsRepository,
    /** the tenant concurrent-query cap; absent outside the gateway (the CLI, specs) */
    @Optional() @Inject(TENANT_QUERY_SLOTS) private readonly slots: TenantQuerySlots | null = null,
  ) {
    this.stats = new CallStatsBatch((e) => statsRepository.add(e));
    this.options = resolveOptions(options);
    this.files = new ToolFiles(options.directory);
    this.pool = new SandboxPool({
      size: this.options.poolSize,
      perTenant: this.options.maxConcurrentPerTenant,
      queueWaitMs: this.options.queueWaitMs,
      maxQueue: 1000,
      recycleAfter: this.options.recycleAfter,
      childHeapMb: 64,
      isolateNetwork: this.options.isolateNetwork,
      limits: {
        memoryBytes: this.options.memoryMb * 1024 * 1024,
        stackBytes: 256 * 1024,
        cpuMs: this.options.cpuMs,
        outputBytes: this.registry.maxResultBytes,
        maxHostCalls: this.options.maxQueriesPerRun,
        maxLogLines: 50,
      },
    });
  }

  layers(): SandboxLayers {
    return this.pool.layers();
  }

  onModuleDestroy(): void {
    this.pool.close();
    void this.stats.close();
  }

  /**
   * One run in the sandbox, with the data doors of `scope`. It ends when the tool has ended
   * and every data call it started has ended too: those still running when the tool returned,
   * threw or timed out are cancelled (and counted against the tenant's cap until they are).
   */
  async execute(run: SandboxRun): Promise<SandboxOutcome> {
    let argsJson: string | undefined;
    if (run.call) {
      const checked = argumentsJson(run.call.args);
      if (typeof checked !== 'string') return checked;
      argsJson = checked;
    }
    const user = runUser(run.scope);
    // what the run was given and reads, for the redaction of its log lines (and of its error)
    const values = run.values ?? new RunValues();
    if (!run.values) values.gave([run.call?.args, user.user_id, user.claims]);
    const log = new RunLog(values, (line) =>
      this.logger.log(`[${run.tenantId}/${run.name}] ${line}`),
    );
    let queries: RunQueries | undefined;
    const outcome = await this.pool.run({
      tenantId: run.tenantId,
      name: run.name,
      source: run.source,
      call: argsJson === undefined ? undefined : { argsJson },
      user,
      timeoutMs: this.options.timeoutMs,
      onHost: async (op, a, bJson, signal) => {
        queries ??= new RunQueries(this.options.maxQueriesPerRun, signal, {
          tenantId: run.scope.principal.tenantId,
          slots: this.slots ?? undefined,
          covered: run.coveredQueries ?? 0,
        });
        const b = hostArguments(op, bJson);
        const value =
          op === 'report'
            ? await this.data.report(run.scope, a, b, queries)
            : await this.data.query(run.scope, a, b, queries);
        const json = hostResultJson(op, value);
        values.read(json);
        return json;
      },
      onLog: (level, text) => log.line(level, text),
    });
    // the job is over (its signal aborted): what it left running is being cancelled
    await queries?.settled();
    return outcome;
  }

  async run(
    _tenant: TenantScope,
    tool: GeneratedTool,
    args: Record<string, unknown>,
    principal: Principal,
  ): Promise<ToolCallOutcome> {
    const { name, source } = tool.record;
    if (!this.options.enabled) {
      return toolFailure(
        name,
        'REFUSED',
        `${name} is not available: generated tools are switched off on this gateway (META_TOOL_ENABLED=0)`,
      );
    }
    const scope = await this.data.scopeFor(principal);
    const values = new RunValues();
    values.gave(args);
    values.gave([principal.userId, principal.claims]);
    const outcome = await this.execute({
      scope,
      tenantId: principal.tenantId,
      name,
      source,
      call: { args },
      // the call was admitted with one slot of the tenant's cap (limitedCall): its first query
      coveredQueries: 1,
      values,
    });
    if (!outcome.ok) {
      const code =
        outcome.stage === 'arguments'
          ? 'INVALID_ARGUMENTS'
          : outcome.stage === 'busy'
            ? 'BUSY'
            : 'TOOL_FAILED';
      // reviewers and the log get it without the caller's values; the caller gets all of it
      const recorded = `${code} (${outcome.stage}): ${redactValues(outcome.message, values)}`;
      this.stats.count(principal.tenantId, name, recorded);
      this.logger.warn(
        `generated tool ${principal.tenantId}/${name} failed for ${principal.userId}: ${recorded}`,
      );
      return toolFailure(name, code, cut(failureMessage(name, outcome), 1000));
    }
    this.stats.count(principal.tenantId, name);
    return toolText(name, cut(outcome.resultJson), { value: outcome.result ?? null });
  }

  /** Writes the call statistics counted so far (they are written every second anyway). */
  flushStats(): Promise<void> {
    return this.stats.flush();
  }

  /** Writes every active generated tool of every tenant to disk (atomically, where missing or changed). */
  async materializeAll(
    tools: Array<{ tenantId: string; name: string; source: string; sha256: string }>,
  ): Promise<void> {
    for (const t of tools) {
      if (sha256(t.source) !== t.sha256) {
        this.logger.warn(
          `generated tool ${t.tenantId}/${t.name} is skipped at start-up: its source does not match its sha256`,
        );
        continue;
      }
      await this.files.materialize(t.tenantId, t.name, t.source, t.sha256).catch((err: unknown) => {
        this.logger.warn(
          `generated tool ${t.tenantId}/${t.name} could not be written: ${err instanceof Error ? err.message : String(err)}`,
        );
      });
    }
  }
}
