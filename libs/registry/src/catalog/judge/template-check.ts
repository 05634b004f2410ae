import { checkMysqlTemplate, declaredParameters, SqlGuard } from '@app/templates';
import type { ReportMetadata, SqlDialect, TemplateProblem } from '@app/templates';
import type { TenantRecord } from '../model/catalog-records';

const guard = new SqlGuard();

export interface DatasourceScope {
  dataSchema: string | null;
  allowedTables: readonly string[];
  /** the data source a report names that the tenant has not registered (its scope is empty) */
  unknownSource?: string;
  /** the dialect of the source's engine (issue #42); absent: Postgres */
  dialect?: SqlDialect;
}

/**
 * What a report's template may read: the schema and tables of the data source it names
 * (issue #30), else the tenant's schema in the gateway's database.
 */
export function reportScope(
  tenant: Pick<TenantRecord, 'dataSchema' | 'allowedTables' | 'sources'>,
  report: Pick<ReportMetadata, 'datasource'>,
): DatasourceScope {
  if (report.datasource === undefined) return tenant;
  const source = tenant.sources?.[report.datasource];
  if (!source) return { dataSchema: null, allowedTables: [], unknownSource: report.datasource };
  return {
    dataSchema: source.schema,
    allowedTables: source.tables,
    ...(source.engine === 'mysql' ? { dialect: 'mysql' as const } : {}),
  };
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
  if (scope.unknownSource !== undefined)
    return [
      {
        rule: 'datasource',
        message: `no data source named "${scope.unknownSource}" is registered for this tenant`,
      },
    ];
  if (!scope.dataSchema) return [{ rule: 'datasource', message: 'the tenant has no datasource' }];
  if (scope.dialect === 'mysql') {
    const mysql = checkMysqlTemplate(report.sqlTemplate, {
      database: scope.dataSchema,
      tables: scope.allowedTables,
    });
    return mysql.ok ? [] : mysql.problems.map((message) => ({ rule: 'mysql', message }));
  }
  const verdict = guard.check({
    sql: report.sqlTemplate,
    whitelist: { defaultSchema: scope.dataSchema, tables: scope.allowedTables },
    declaredParams: [...declaredParameters(report.filters).keys()],
  });
  return verdict.ok ? [] : verdict.errors;
}
