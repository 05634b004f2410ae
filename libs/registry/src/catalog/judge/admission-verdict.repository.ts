import { Inject, Injectable } from '@nestjs/common';
import type { DatabaseHandle } from '@app/db';
import type { TemplateProblem } from '@app/templates';
import { sql } from 'kysely';
import { DATABASE } from '../../tokens';
import type { VerdictStore } from './template-verdicts';

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
