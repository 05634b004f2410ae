import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { GeneratedToolRecord, TenantRecord } from './catalog-records';
import { GeneratedTool, generatedToolProblem } from './generated-tools';
import { Metrics } from '../metrics';
import type { AdmitReport } from './report-set';
import { admitReport } from './tenant-catalog';
import type { AdmittedReport } from './tenant-catalog';

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
}

export const ADMISSION_LIMITS = Symbol('ADMISSION_LIMITS');

const DEFAULT_LIMITS: AdmissionLimits = { reports: 200_000, generated: 10_000, logged: 50_000 };

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

  constructor(
    private readonly metrics: Metrics,
    @Optional() @Inject(ADMISSION_LIMITS) limits: AdmissionLimits | null = null,
  ) {
    limits ??= DEFAULT_LIMITS;
    this.reports = new LRUCache({ max: limits.reports });
    this.generated = new LRUCache({ max: limits.generated });
    this.logged = new LRUCache({ max: limits.logged });
    metrics.describe(
      'gateway_sql_guard_refusals_total',
      'report templates the SQL guard refused at load (once per report version), by rule',
    );
  }

  /** Judges a report once per version, status and data scope; verdicts are reused across catalogs. */
  admitter(tenant: TenantRecord): AdmitReport {
    const scope = dataScope(tenant);
    return (stored) => {
      // updatedAt too: a report removed and added again starts over at version 1
      const key = `${tenant.id}:${stored.metadata.id}:${stored.metadata.version}:${stored.updatedAt}:${stored.status}:${scope}`;
      let verdict = this.reports.get(key);
      if (!verdict) {
        verdict = admitReport(stored, tenant);
        this.reports.set(key, verdict);
        this.logIfInvalid(tenant.id, verdict);
      }
      return verdict;
    };
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
    if (status.reason === 'the SQL template was rejected')
      for (const rule of new Set(status.problems?.map((p) => p.rule)))
        this.metrics.inc('gateway_sql_guard_refusals_total', { rule });
    const problems = status.problems?.map((p) => p.message).join('; ') ?? '';
    this.logger.warn(
      `report ${tenantId}/${verdict.id} is not served: ${status.reason}${problems ? `: ${problems}` : ''}`,
    );
  }
}
