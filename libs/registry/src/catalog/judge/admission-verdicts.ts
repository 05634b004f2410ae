import { createHash } from 'node:crypto';
import { declaredParameters } from '@app/templates';
import type { ReportMetadata, TemplateProblem } from '@app/templates';
import type { DatasourceScope } from './template-check';

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
