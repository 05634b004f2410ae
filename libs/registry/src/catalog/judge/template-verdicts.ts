import { createHash } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { declaredParameters, flatString } from '@app/templates';
import type { ReportMetadata, TemplateProblem } from '@app/templates';
import { LRUCache } from 'lru-cache';
import type { StoredReport, TenantRecord } from '../model/catalog-records';
import type { Metrics } from '../../metrics';
import { reportScope, templateProblems } from './template-check';
import type { DatasourceScope } from './template-check';

/*
 * The SQL guard's verdicts on report templates, judged once per template and guard revision
 * for every instance: keyed by a hash of what the verdict depends on, held in memory
 * (TemplateVerdicts) and in Postgres (VerdictPersistence, over a VerdictStore).
 */

/**
 * The guard's revision: part of every persisted verdict's hash. Bump it with any change to
 * what the SQL guard accepts (its rules, allowed functions, the parser), so verdicts made by
 * an older guard are never reused.
 */
export const GUARD_REVISION = 'sql-guard-2026-12-02';

/**
 * What a guard verdict depends on, hashed: the guard revision, the data schema and allowed
 * tables, the declared parameters and the template. Equal hashes, equal verdicts.
 */
export function templateHash(report: ReportMetadata, scope: DatasourceScope): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        GUARD_REVISION,
        scope.dataSchema,
        scope.allowedTables,
        // a Postgres verdict stays keyed as before; a MySQL one is judged by its own guard
        ...(scope.dialect === 'mysql' ? ['mysql'] : []),
        [...declaredParameters(report.filters).keys()],
        report.sqlTemplate,
      ]),
    )
    .digest('base64url');
}

/** Where guard verdicts are persisted (Postgres, or a fake of it in unit specs). */
export interface VerdictStore {
  read(tenantId: string, hashes: readonly string[]): Promise<Map<string, TemplateProblem[]>>;
  write(
    tenantId: string,
    verdicts: ReadonlyArray<{ hash: string; problems: TemplateProblem[] }>,
  ): Promise<void>;
}

export const VERDICT_STORE = Symbol('VERDICT_STORE');

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

/** verdicts written to Postgres per statement */
const WRITE_BATCH = 1000;
/** at most this many verdicts wait to be written; beyond, new ones are only kept in memory */
const MAX_UNWRITTEN = 20_000;

/**
 * The SQL guard's verdicts in Postgres (gateway.admission_verdicts), shared by instances:
 * reads for a batch of template hashes, and writes batched after the current slice. A
 * failed read or write is warned about once and never fails admission: the templates are
 * judged here instead. Without a store it reads nothing and keeps nothing.
 */
export class VerdictPersistence {
  private readonly logger = new Logger('CatalogStore');
  /** verdicts judged here and not yet written, by tenant */
  private readonly unwritten = new Map<string, Map<string, TemplateProblem[]>>();
  private unwrittenCount = 0;
  private writing?: Promise<void>;
  private warned = false;

  constructor(private readonly store: VerdictStore | null) {}

  get enabled(): boolean {
    return this.store !== null;
  }

  /** The persisted verdicts of these hashes (those found); none when the read fails. */
  async read(tenantId: string, hashes: readonly string[]): Promise<Map<string, TemplateProblem[]>> {
    if (!this.store || hashes.length === 0) return new Map();
    try {
      return await this.store.read(tenantId, hashes);
    } catch (err) {
      this.warn('read', err);
      return new Map();
    }
  }

  /** Queues a verdict judged here to be written (once per tenant and hash while queued). */
  persist(tenantId: string, hash: string, problems: TemplateProblem[]): void {
    if (!this.store || this.unwrittenCount >= MAX_UNWRITTEN) return;
    let forTenant = this.unwritten.get(tenantId);
    if (!forTenant) this.unwritten.set(tenantId, (forTenant = new Map()));
    if (forTenant.has(hash)) return;
    forTenant.set(hash, problems);
    this.unwrittenCount++;
    this.writing ??= this.writeAll(this.store).finally(() => {
      this.writing = undefined;
    });
  }

  /** Resolves when every queued verdict was written (or its write failed). */
  async flushed(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async writeAll(store: VerdictStore): Promise<void> {
    // after the current slice: verdicts judged together are written together
    await yieldToLoop();
    while (this.unwritten.size > 0) {
      const [tenantId, verdicts] = this.unwritten.entries().next().value!;
      const batch = [...verdicts].slice(0, WRITE_BATCH);
      for (const [hash] of batch) verdicts.delete(hash);
      if (verdicts.size === 0) this.unwritten.delete(tenantId);
      this.unwrittenCount -= batch.length;
      try {
        await store.write(
          tenantId,
          batch.map(([hash, problems]) => ({ hash, problems })),
        );
      } catch (err) {
        this.warn('write', err);
      }
    }
  }

  private warn(what: 'read' | 'write', err: unknown): void {
    if (this.warned) return;
    this.warned = true;
    this.logger.warn(
      `persisted SQL guard verdicts could not be ${what === 'read' ? 'read' : 'written'} (templates are judged here instead): ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
