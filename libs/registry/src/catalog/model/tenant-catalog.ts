import { ReportTool, TemplateError } from '@app/templates';
import type { ReportMetadata, TemplateProblem } from '@app/templates';
import type { AccessPolicy } from '../../access/access-policy';
import type { GeneratedTool } from './generated-tools';
import type { ReportSet } from './report-set';
import type { AdmittedReport, ReportServingStatus } from './report-set-patch';
import type { StoredReport, TenantRecord } from './catalog-records';
import { reportScope, templateProblems } from '../judge/template-check';
import type { DatasourceScope } from '../judge/template-check';

export type { AdmittedReport, ReportServingStatus } from './report-set-patch';

/**
 * Serves a report only if it is active, well-formed and its template passes the guard.
 * Total: whatever a report row contains, the verdict is about that report alone (an
 * unexpected error is a "not served" verdict naming it), so one row can never take the
 * rest of its tenant down.
 */
export function admitReport(
  stored: StoredReport,
  tenant: TenantRecord,
  problemsOf: TemplateJudge = templateProblems,
): AdmittedReport {
  const { id, version } = stored.metadata;
  try {
    return judge(stored, tenant, problemsOf);
  } catch (err) {
    const problem =
      err instanceof TemplateError
        ? err.problems
        : [{ rule: 'unreadable', message: `the report could not be read: ${describe(err)}` }];
    return {
      id,
      version,
      status: { served: false, reason: 'invalid metadata', problems: problem },
    };
  }
}

/** The SQL guard's verdict on a report's template (templateProblems, or a memo of it). */
export type TemplateJudge = (report: ReportMetadata, scope: DatasourceScope) => TemplateProblem[];

function judge(
  stored: StoredReport,
  tenant: TenantRecord,
  problemsOf: TemplateJudge,
): AdmittedReport {
  const { id, version } = stored.metadata;
  if (stored.status === 'disabled')
    return { id, version, status: { served: false, reason: 'disabled' } };
  const tool = new ReportTool(stored.metadata);
  const problems = problemsOf(stored.metadata, reportScope(tenant, stored.metadata));
  if (problems.length > 0) {
    return {
      id,
      version,
      status: { served: false, reason: 'the SQL template was rejected', problems },
    };
  }
  return { id, version, status: { served: true }, tool };
}

function describe(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** One tenant's catalog at one version: report tools, why others are not served, access. */
export class TenantCatalog {
  /** generated tools (meta_tool) that passed the integrity checks */
  readonly generated = new Map<string, GeneratedTool>();

  constructor(
    readonly tenant: TenantRecord,
    readonly reports: ReportSet,
    readonly access: AccessPolicy,
    generated: GeneratedTool[] = [],
  ) {
    for (const tool of generated) this.generated.set(tool.definition.name, tool);
  }

  get version(): number {
    return this.tenant.catalogVersion;
  }

  reportVersion(id: string): number | undefined {
    return this.reports.verdict(id)?.version;
  }

  /** Whether the report is served, and if not why; undefined for an unknown id. */
  reportStatus(id: string): ReportServingStatus | undefined {
    return this.reports.verdict(id)?.status;
  }
}
