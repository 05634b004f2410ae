import { flatString } from '@app/templates';
import type { TemplateProblem } from '@app/templates';
import { LRUCache } from 'lru-cache';
import { templateHash } from './admission-verdicts';
import type { StoredReport, TenantRecord } from '../model/catalog-records';
import type { Metrics } from '../../metrics';
import { reportScope, templateProblems } from './template-check';
import type { DatasourceScope } from './template-check';
import type { VerdictPersistence } from './verdict-persistence';

/** The verdict of every template without a problem (most of them): one shared empty list. */
const NO_PROBLEMS = Object.freeze([]) as unknown as TemplateProblem[];

/** What a verdict keeps: the shared empty list for a template without problems. */
const kept = (problems: TemplateProblem[]) => (problems.length === 0 ? NO_PROBLEMS : problems);

/** The memo key of a template's verdict: one flat string (a built one costs its pieces too). */
const keyOf = (tenantId: string, hash: string) => flatString(`${tenantId}:${hash}`);

/**
 * The SQL guard's verdicts by tenant and template hash: in memory (at most `max`), read from
 * Postgres a batch at a time (`preload`), else judged here and persisted for the other
 * instances and the next start. Judging and refusals are counted where the guard runs.
 */
export class TemplateVerdicts {
  private readonly templates: LRUCache<string, TemplateProblem[]>;

  constructor(
    private readonly metrics: Pick<Metrics, 'inc' | 'describe'>,
    private readonly persisted: VerdictPersistence,
    max: number,
  ) {
    this.templates = new LRUCache({ max });
    metrics.describe(
      'gateway_sql_guard_refusals_total',
      'report templates the SQL guard refused (once per template judged here; a verdict read from Postgres was counted where it was judged), by rule',
    );
    metrics.describe(
      'gateway_sql_guard_runs_total',
      'report templates judged by the SQL guard here, by where the verdict came from',
    );
  }

  /** Resolves when no verdict write is under way. */
  flushed(): Promise<void> {
    return this.persisted.flushed();
  }

  /** The guard's verdict on a template: from memory, from Postgres (preloaded), or judged now. */
  verdict(
    tenantId: string,
    report: StoredReport['metadata'],
    scope: DatasourceScope,
  ): TemplateProblem[] {
    if (!scope.dataSchema) return this.counted(templateProblems(report, scope));
    const hash = templateHash(report, scope);
    const key = keyOf(tenantId, hash);
    const known = this.templates.get(key);
    if (known) return known;
    const problems = kept(this.counted(templateProblems(report, scope)));
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
  async preload(tenant: TenantRecord, batch: readonly StoredReport[]): Promise<void> {
    if (!this.persisted.enabled || !tenant.dataSchema) return;
    const missing: string[] = [];
    for (const stored of batch) {
      if (stored.status === 'disabled') continue;
      const hash = templateHash(stored.metadata, reportScope(tenant, stored.metadata));
      if (!this.templates.has(`${tenant.id}:${hash}`)) missing.push(hash);
    }
    let fresh = 0;
    for (const [hash, problems] of await this.persisted.read(tenant.id, missing)) {
      const key = keyOf(tenant.id, hash);
      // another batch's read (or a judge) may have filled it meanwhile
      if (this.templates.has(key)) continue;
      this.templates.set(key, kept(problems));
      fresh++;
    }
    if (fresh > 0) this.metrics.inc('gateway_sql_guard_runs_total', { source: 'persisted' }, fresh);
  }
}
