import { ReportTool, TemplateError } from '@app/templates';
import type { ReportMetadata, TemplateProblem } from '@app/templates';
import type { StoredReport, TenantRecord } from '../model/catalog-records';
import type { AdmittedReport } from '../model/report-set-patch';
import { reportScope, templateProblems } from './template-check';
import type { DatasourceScope } from './template-check';

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
  const scope = reportScope(tenant, stored.metadata);
  const tool = new ReportTool(stored.metadata, scope.dialect);
  const problems = problemsOf(stored.metadata, scope);
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
