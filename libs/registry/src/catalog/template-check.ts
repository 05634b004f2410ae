import { declaredParameters, SqlGuard } from '@app/templates';
import type { ReportMetadata, TemplateProblem } from '@app/templates';

const guard = new SqlGuard();

export interface DatasourceScope {
  dataSchema: string | null;
  allowedTables: readonly string[];
}

/**
 * The SQL guard's verdict on a report template within its tenant's whitelist. Used when
 * metadata is written through the API and again when the registry loads a report, so a
 * report inserted by plain SQL is judged exactly like one that came through the API.
 */
export function templateProblems(
  report: ReportMetadata,
  scope: DatasourceScope,
): TemplateProblem[] {
  if (!scope.dataSchema) return [{ rule: 'datasource', message: 'the tenant has no datasource' }];
  const verdict = guard.check({
    sql: report.sqlTemplate,
    whitelist: { defaultSchema: scope.dataSchema, tables: scope.allowedTables },
    declaredParams: [...declaredParameters(report.filters).keys()],
  });
  return verdict.ok ? [] : verdict.errors;
}
