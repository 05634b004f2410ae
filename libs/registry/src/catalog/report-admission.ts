import { createHash } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { TemplateProblem } from '@app/templates';
import { LRUCache } from 'lru-cache';
import { templateHash, VERDICT_STORE } from './admission-verdicts';
import type { VerdictStore } from './admission-verdicts';
import type { GeneratedToolRecord, StoredReport, TenantRecord } from './catalog-records';
import { GeneratedTool, generatedToolProblem } from './generated-tools';
import { Metrics } from '../metrics';
import { ADMISSION_SLICE_MS } from './report-set';
import type { AdmitReport, ReportSet } from './report-set';
import { admitReport } from './tenant-catalog';
import type { AdmittedReport } from './tenant-catalog';
import { templateProblems } from './template-check';
import type { DatasourceScope } from './template-check';

/** What every report verdict of a tenant depends on besides the report: schema and tables. */
export function dataScope(tenant: TenantRecord): string {
  return createHash('sha256')
    .update(`${tenant.dataSchema}|${tenant.allowedTables.join(',')}`)
    .digest('base64url')
    .slice(0, 12);
}

/** How many verdicts of each kind are remembered (least recently used go first). */
export interface AdmissionLimits {
  reports: number;
  generated: number;
  /** reports already logged as not served, so a refusal is logged once per version */
  logged: number;
  /** SQL guard verdicts by template hash (small: a hash and a list of problems) */
  templates?: number;
}

export const ADMISSION_LIMITS = Symbol('ADMISSION_LIMITS');

const DEFAULT_LIMITS: AdmissionLimits = {
  reports: 200_000,
  generated: 10_000,
  logged: 50_000,
  templates: 250_000,
};
/** verdicts written to Postgres per statement */
const WRITE_BATCH = 1000;
/** at most this many verdicts wait to be written; beyond, new ones are only kept in memory */
const MAX_UNWRITTEN = 20_000;

interface BackgroundJob {
  tenant: TenantRecord;
  reports: StoredReport[];
  next: number;
}

/**
 * Judges reports and generated tools once per version and remembers the verdicts, so a
 * catalog rebuilt after a change re-judges only what changed. A refusal is logged (and a
 * guard refusal counted) once per report version.
 */
@Injectable()
export class ReportAdmission {
  private readonly logger = new Logger('CatalogStore');
  private readonly reports: LRUCache<string, AdmittedReport>;
  private readonly generated: LRUCache<string, { tool?: GeneratedTool }>;
  private readonly logged: LRUCache<string, true>;
  /** the SQL guard's verdicts by tenant and template hash (persisted ones once read) */
  private readonly templates: LRUCache<string, TemplateProblem[]>;
  /** verdicts judged here and not yet written to Postgres, by tenant */
  private readonly unwritten = new Map<string, Map<string, TemplateProblem[]>>();
  private unwrittenCount = 0;
  private writing?: Promise<void>;
  /** background judging: one job per tenant (the newest catalog's), run one at a time */
  private readonly jobs = new Map<string, BackgroundJob>();
  private running?: Promise<void>;
  private storeWarned = false;

  constructor(
    private readonly metrics: Metrics,
    @Optional() @Inject(ADMISSION_LIMITS) limits: AdmissionLimits | null = null,
    @Optional() @Inject(VERDICT_STORE) private readonly store: VerdictStore | null = null,
  ) {
    limits ??= DEFAULT_LIMITS;
    this.reports = new LRUCache({ max: limits.reports });
    this.generated = new LRUCache({ max: limits.generated });
    this.logged = new LRUCache({ max: limits.logged });
    this.templates = new LRUCache({ max: limits.templates ?? DEFAULT_LIMITS.templates! });
    metrics.describe(
      'gateway_sql_guard_refusals_total',
      'report templates the SQL guard refused (once per template judged here; a verdict read from Postgres was counted where it was judged), by rule',
    );
    metrics.describe(
      'gateway_catalog_admission_pending',
      'report templates waiting to be judged in the background (all tenants)',
    );
    metrics.describe(
      'gateway_sql_guard_runs_total',
      'report templates judged by the SQL guard here, by where the verdict came from',
    );
  }

  /** Judges a report once per version, status and data scope; verdicts are reused across catalogs. */
  admitter(tenant: TenantRecord): AdmitReport {
    const scope = dataScope(tenant);
    const problemsOf = (report: StoredReport['metadata'], within: DatasourceScope) =>
      this.templateVerdict(tenant.id, report, within);
    const admit: AdmitReport = (stored) => {
      // updatedAt too: a report removed and added again starts over at version 1
      const key = `${tenant.id}:${stored.metadata.id}:${stored.metadata.version}:${stored.updatedAt}:${stored.status}:${scope}`;
      let verdict = this.reports.get(key);
      if (!verdict) {
        verdict = admitReport(stored, tenant, problemsOf);
        this.reports.set(key, verdict);
        this.logIfInvalid(tenant.id, verdict);
      }
      return verdict;
    };
    admit.preload = (batch) => this.preload(tenant, batch);
    return admit;
  }

  /**
   * Judges the templates of a catalog's reports that are not judged yet, in the background:
   * in slices of about ADMISSION_SLICE_MS that yield to the event loop between them, one
   * tenant at a time, and persists the verdicts. A newer catalog of the tenant replaces the
   * job; the `changed` reports of a refresh are added to the job under way instead. What it
   * keeps per report is the verdict by template hash (no tools, no parse trees).
   */
  judgeInBackground(tenant: TenantRecord, set: ReportSet, changed?: readonly StoredReport[]): void {
    if (!set.lazy || set.unjudged === 0 || !tenant.dataSchema) return;
    // hashing is left to the job's slices: here only the list of reports is taken
    const reports = [...(changed ?? set.storedReports())].filter((r) => r.status !== 'disabled');
    if (reports.length === 0) return;
    const running = this.jobs.get(tenant.id);
    if (changed && running) running.reports.push(...reports);
    else this.jobs.set(tenant.id, { tenant, reports, next: 0 });
    this.updatePending();
    this.running ??= this.runJobs().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves when no background judging is under way (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
    await this.flushing();
  }

  private async runJobs(): Promise<void> {
    for (;;) {
      const [tenantId, job] = this.jobs.entries().next().value ?? [];
      if (!tenantId || !job) return;
      while (this.jobs.get(tenantId) === job && job.next < job.reports.length) {
        const batch = job.reports.slice(job.next, job.next + 200);
        await this.preload(job.tenant, batch);
        const started = performance.now();
        let done = 0;
        for (const stored of batch) {
          this.templateVerdict(job.tenant.id, stored.metadata, job.tenant);
          done++;
          if (performance.now() - started > ADMISSION_SLICE_MS) break;
        }
        job.next += done;
        this.updatePending();
        await yieldToLoop();
      }
      if (this.jobs.get(tenantId) === job) this.jobs.delete(tenantId);
      this.updatePending();
    }
  }

  private updatePending(): void {
    let pending = 0;
    for (const job of this.jobs.values()) pending += job.reports.length - job.next;
    this.metrics.set('gateway_catalog_admission_pending', pending);
  }

  /** The guard's verdict on a template: from memory, from Postgres (preloaded), or judged now. */
  private templateVerdict(
    tenantId: string,
    report: StoredReport['metadata'],
    scope: DatasourceScope,
  ): TemplateProblem[] {
    if (!scope.dataSchema) return this.counted(templateProblems(report, scope));
    const hash = templateHash(report, scope);
    const key = `${tenantId}:${hash}`;
    const known = this.templates.get(key);
    if (known) return known;
    const problems = this.counted(templateProblems(report, scope));
    this.metrics.inc('gateway_sql_guard_runs_total', { source: 'judged' });
    this.templates.set(key, problems);
    this.persist(tenantId, hash, problems);
    return problems;
  }

  /**
   * Counts a refusal by rule where the guard runs (a list's admission or background judging),
   * so a bad template shows in the metric whether or not anyone can reach its report.
   */
  private counted(problems: TemplateProblem[]): TemplateProblem[] {
    for (const rule of new Set(problems.map((p) => p.rule)))
      this.metrics.inc('gateway_sql_guard_refusals_total', { rule });
    return problems;
  }

  /** Reads the persisted verdicts of a batch's templates not held in memory. */
  private async preload(tenant: TenantRecord, batch: readonly StoredReport[]): Promise<void> {
    if (!this.store || !tenant.dataSchema) return;
    const missing: string[] = [];
    for (const stored of batch) {
      if (stored.status === 'disabled') continue;
      const hash = templateHash(stored.metadata, tenant);
      if (!this.templates.has(`${tenant.id}:${hash}`)) missing.push(hash);
    }
    if (missing.length === 0) return;
    try {
      const found = await this.store.read(tenant.id, missing);
      let fresh = 0;
      for (const [hash, problems] of found) {
        const key = `${tenant.id}:${hash}`;
        // another batch's read (or a judge) may have filled it meanwhile
        if (this.templates.has(key)) continue;
        this.templates.set(key, problems);
        fresh++;
      }
      if (fresh > 0)
        this.metrics.inc('gateway_sql_guard_runs_total', { source: 'persisted' }, fresh);
    } catch (err) {
      this.warnStore('read', err);
    }
  }

  private persist(tenantId: string, hash: string, problems: TemplateProblem[]): void {
    if (!this.store || this.unwrittenCount >= MAX_UNWRITTEN) return;
    let forTenant = this.unwritten.get(tenantId);
    if (!forTenant) this.unwritten.set(tenantId, (forTenant = new Map()));
    if (forTenant.has(hash)) return;
    forTenant.set(hash, problems);
    this.unwrittenCount++;
    this.writing ??= this.writeAll().finally(() => {
      this.writing = undefined;
    });
  }

  private async writeAll(): Promise<void> {
    // after the current slice: verdicts judged together are written together
    await yieldToLoop();
    while (this.unwritten.size > 0) {
      const [tenantId, verdicts] = this.unwritten.entries().next().value!;
      const batch = [...verdicts].slice(0, WRITE_BATCH);
      for (const [hash] of batch) verdicts.delete(hash);
      if (verdicts.size === 0) this.unwritten.delete(tenantId);
      this.unwrittenCount -= batch.length;
      try {
        await this.store!.write(
          tenantId,
          batch.map(([hash, problems]) => ({ hash, problems })),
        );
      } catch (err) {
        this.warnStore('write', err);
      }
    }
  }

  private async flushing(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private warnStore(what: string, err: unknown): void {
    if (this.storeWarned) return;
    this.storeWarned = true;
    this.logger.warn(
      `persisted SQL guard verdicts could not be ${what === 'read' ? 'read' : 'written'} (templates are judged here instead): ${err instanceof Error ? err.message : String(err)}`,
    );
  }

  /** Generated tools whose source matches its sha256 and whose schema compiles; others are logged once and skipped. */
  admitGenerated(tenantId: string, records: GeneratedToolRecord[]): GeneratedTool[] {
    const tools: GeneratedTool[] = [];
    for (const record of records) {
      // keyed by what the source really is, so a tampered source is judged again
      const key = `${tenantId}:generated:${record.name}:${createHash('sha256').update(record.source).digest('hex')}:${record.sha256}:${record.status}`;
      let admitted = this.generated.get(key);
      if (admitted === undefined) {
        const problem = generatedToolProblem(record);
        admitted = problem ? {} : { tool: new GeneratedTool(record) };
        this.generated.set(key, admitted);
        if (problem && problem !== 'disabled')
          this.logger.warn(`generated tool ${tenantId}/${record.name} is skipped: ${problem}`);
      }
      if (admitted.tool) tools.push(admitted.tool);
    }
    return tools;
  }

  private logIfInvalid(tenantId: string, verdict: AdmittedReport): void {
    const { status } = verdict;
    if (status.served || status.reason === 'disabled') return;
    const key = `${tenantId}:${verdict.id}:${verdict.version}`;
    if (this.logged.has(key)) return;
    this.logged.set(key, true);
    const problems = status.problems?.map((p) => p.message).join('; ') ?? '';
    this.logger.warn(
      `report ${tenantId}/${verdict.id} is not served: ${status.reason}${problems ? `: ${problems}` : ''}`,
    );
  }
}
