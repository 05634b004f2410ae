import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { flatString } from '@app/templates';
import { LRUCache } from 'lru-cache';
import { TemplateVerdicts, VERDICT_STORE, VerdictPersistence } from './template-verdicts';
import type { VerdictStore } from './template-verdicts';
import type {
  GeneratedToolRecord,
  ReportChanges,
  StoredReport,
  TenantRecord,
} from '../model/catalog-records';
import type { GeneratedTool } from '../model/generated-tools';
import { GeneratedAdmission } from './generated-admission';
import { Metrics } from '../../metrics';
import type { AdmitReport, ReportSet } from '../model/report-set';
import { BackgroundJudging } from './background-judging';
import { admitReport } from './admit-report';
import type { AdmittedReport } from '../model/report-set-patch';
import { reportScope } from './template-check';
import type { DatasourceScope } from './template-check';

/** What every report verdict of a tenant depends on besides the report: schema and tables. */
export function dataScope(tenant: TenantRecord): string {
  return createHash('sha256')
    .update(`${tenant.dataSchema}|${tenant.allowedTables.join(',')}|${sourcesScope(tenant)}`)
    .digest('base64url')
    .slice(0, 12);
}

/** The registered sources' names, schemas and tables (not their revisions: a new password judges nothing again). */
function sourcesScope(tenant: TenantRecord): string {
  const sources = tenant.sources ?? {};
  return JSON.stringify(
    Object.keys(sources)
      .sort()
      .map((name) => [
        name,
        sources[name].schema,
        sources[name].tables,
        ...(sources[name].engine === 'mysql' ? ['mysql'] : []),
      ]),
  );
}

/** A report verdict's memo key: everything the verdict depends on. */
function verdictKey(tenantId: string, stored: StoredReport, scope: string): string {
  // updatedAt too: a report removed and added again starts over at version 1; one flat
  // string (the LRU keeps it for each admitted report)
  return flatString(
    `${tenantId}:${stored.metadata.id}:${stored.metadata.version}:${stored.updatedAt}:${stored.status}:${scope}`,
  );
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
  private readonly generated: GeneratedAdmission;
  private readonly logged: LRUCache<string, true>;
  private readonly templates: TemplateVerdicts;
  private readonly background: BackgroundJudging;

  constructor(
    private readonly metrics: Metrics,
    @Optional() @Inject(ADMISSION_LIMITS) limits: AdmissionLimits | null = null,
    @Optional() @Inject(VERDICT_STORE) store: VerdictStore | null = null,
  ) {
    limits ??= DEFAULT_LIMITS;
    this.templates = new TemplateVerdicts(
      metrics,
      new VerdictPersistence(store),
      limits.templates ?? DEFAULT_LIMITS.templates!,
    );
    this.background = new BackgroundJudging(
      {
        preload: (tenant, batch) => this.templates.preload(tenant, batch),
        judge: (tenant, report) =>
          this.templates.verdict(tenant.id, report, reportScope(tenant, report)),
      },
      metrics,
    );
    this.reports = new LRUCache({ max: limits.reports });
    this.generated = new GeneratedAdmission(limits.generated);
    this.logged = new LRUCache({ max: limits.logged });
    metrics.describe(
      'gateway_catalog_admission_pending',
      'report templates waiting to be judged in the background (all tenants)',
    );
  }

  /** Judges a report once per version, status and data scope; verdicts are reused across catalogs. */
  admitter(tenant: TenantRecord): AdmitReport {
    const scope = dataScope(tenant);
    const problemsOf = (report: StoredReport['metadata'], within: DatasourceScope) =>
      this.templates.verdict(tenant.id, report, within);
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
    admit.preload = (batch) => this.templates.preload(tenant, batch);
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

  /**
   * After a refresh patched `previous`'s reports into `reports`: the verdicts of replaced
   * versions are retired, and what changed is judged in the background too, so a bad
   * template shows in the metrics before anyone lists it (all of them when the data scope
   * changed).
   */
  patched(
    previous: { tenant: TenantRecord; reports: ReportSet },
    tenant: TenantRecord,
    changes: ReportChanges,
    reports: ReportSet,
  ): void {
    this.retire(
      previous.tenant,
      [...changes.changed.map((r) => r.metadata.id), ...changes.removed].flatMap(
        (id) => previous.reports.storedReport(id) ?? [],
      ),
      new Map(changes.changed.map((r) => [r.metadata.id, r])),
    );
    const sameScope = reports.scope === previous.reports.scope;
    this.background.schedule(tenant, reports, sameScope ? changes.changed : undefined);
  }

  /** Judges the catalog's unjudged templates in the background (BackgroundJudging). */
  judgeInBackground(tenant: TenantRecord, set: ReportSet, changed?: readonly StoredReport[]): void {
    this.background.schedule(tenant, set, changed);
  }

  /** Resolves when no background judging or verdict write is under way (tests, shutdown). */
  async idle(): Promise<void> {
    await this.background.idle();
    await this.templates.flushed();
  }

  /** Generated tools that pass the integrity checks (GeneratedAdmission). */
  admitGenerated(tenantId: string, records: GeneratedToolRecord[]): GeneratedTool[] {
    return this.generated.admit(tenantId, records);
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
