import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { TemplateProblem } from '@app/templates';
import { LRUCache } from 'lru-cache';
import { templateHash, VERDICT_STORE } from './admission-verdicts';
import type { VerdictStore } from './admission-verdicts';
import type { GeneratedToolRecord, StoredReport, TenantRecord } from './catalog-records';
import { GeneratedTool, generatedToolProblem } from './generated-tools';
import { Metrics } from '../metrics';
import type { AdmitReport, ReportSet } from './report-set';
import { BackgroundJudging } from './background-judging';
import { VerdictPersistence } from './verdict-persistence';
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

/** A report verdict's memo key: everything the verdict depends on. */
function verdictKey(tenantId: string, stored: StoredReport, scope: string): string {
  // updatedAt too: a report removed and added again starts over at version 1
  return `${tenantId}:${stored.metadata.id}:${stored.metadata.version}:${stored.updatedAt}:${stored.status}:${scope}`;
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
  private readonly persisted: VerdictPersistence;
  private readonly background: BackgroundJudging;

  constructor(
    private readonly metrics: Metrics,
    @Optional() @Inject(ADMISSION_LIMITS) limits: AdmissionLimits | null = null,
    @Optional() @Inject(VERDICT_STORE) store: VerdictStore | null = null,
  ) {
    this.persisted = new VerdictPersistence(store);
    this.background = new BackgroundJudging(
      {
        preload: (tenant, batch) => this.preload(tenant, batch),
        judge: (tenant, report) => this.templateVerdict(tenant.id, report, tenant),
      },
      metrics,
    );
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
      const key = verdictKey(tenant.id, stored, scope);
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
   * Forgets the verdicts on report versions a refresh replaced or removed (`before`, as the
   * previous catalog held them, against `after`, what the new one holds): nothing can ask for
   * them again, so a catalog that changes often does not fill memory up to the bound.
   */
  retire(
    tenant: TenantRecord,
    before: readonly StoredReport[],
    after: ReadonlyMap<string, StoredReport>,
  ): void {
    const scope = dataScope(tenant);
    for (const stored of before) {
      const key = verdictKey(tenant.id, stored, scope);
      const now = after.get(stored.metadata.id);
      if (now && verdictKey(tenant.id, now, scope) === key) continue;
      this.reports.delete(key);
      this.logged.delete(`${tenant.id}:${stored.metadata.id}:${stored.metadata.version}`);
    }
  }

  /** Judges the catalog's unjudged templates in the background (BackgroundJudging). */
  judgeInBackground(tenant: TenantRecord, set: ReportSet, changed?: readonly StoredReport[]): void {
    this.background.schedule(tenant, set, changed);
  }

  /** Resolves when no background judging or verdict write is under way (tests, shutdown). */
  async idle(): Promise<void> {
    await this.background.idle();
    await this.persisted.flushed();
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
    this.persisted.persist(tenantId, hash, problems);
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
    if (!this.persisted.enabled || !tenant.dataSchema) return;
    const missing: string[] = [];
    for (const stored of batch) {
      if (stored.status === 'disabled') continue;
      const hash = templateHash(stored.metadata, tenant);
      if (!this.templates.has(`${tenant.id}:${hash}`)) missing.push(hash);
    }
    let fresh = 0;
    for (const [hash, problems] of await this.persisted.read(tenant.id, missing)) {
      const key = `${tenant.id}:${hash}`;
      // another batch's read (or a judge) may have filled it meanwhile
      if (this.templates.has(key)) continue;
      this.templates.set(key, problems);
      fresh++;
    }
    if (fresh > 0) this.metrics.inc('gateway_sql_guard_runs_total', { source: 'persisted' }, fresh);
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
