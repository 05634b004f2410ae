import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { DatabaseHandle } from '@app/db';
import { declaredParameters } from '@app/templates';
import type { ReportMetadata, TemplateProblem } from '@app/templates';
import { sql } from 'kysely';
import { DATABASE } from '../tokens';
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

/** gateway.admission_verdicts: the SQL guard's verdicts by tenant and template hash. */
@Injectable()
export class AdmissionVerdictRepository implements VerdictStore {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  async read(tenantId: string, hashes: readonly string[]): Promise<Map<string, TemplateProblem[]>> {
    const found = new Map<string, TemplateProblem[]>();
    if (hashes.length === 0) return found;
    const rows = await this.database.db
      .withSchema('gateway')
      .selectFrom('admission_verdicts')
      .select(['template_hash', 'problems'])
      .where('tenant_id', '=', tenantId)
      .where('template_hash', '=', sql<string>`ANY(${[...hashes]}::text[])`)
      .execute();
    for (const row of rows)
      if (Array.isArray(row.problems))
        found.set(row.template_hash, row.problems as TemplateProblem[]);
    return found;
  }

  /** Inserts verdicts not stored yet; a concurrent writer of the same verdict is no conflict. */
  async write(
    tenantId: string,
    verdicts: ReadonlyArray<{ hash: string; problems: TemplateProblem[] }>,
  ): Promise<void> {
    if (verdicts.length === 0) return;
    await sql`INSERT INTO gateway.admission_verdicts (tenant_id, template_hash, problems)
      SELECT ${tenantId}, h, p::jsonb
        FROM unnest(${verdicts.map((v) => v.hash)}::text[], ${verdicts.map((v) => JSON.stringify(v.problems))}::text[]) AS v(h, p)
      ON CONFLICT (tenant_id, template_hash) DO NOTHING`.execute(this.database.db);
  }
}
