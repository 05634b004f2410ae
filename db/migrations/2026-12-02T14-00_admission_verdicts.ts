import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * The SQL guard's verdicts on report templates, by template hash (issue 17), so a restarted
 * or another gateway instance does not parse a big tenant's templates again. A cache: any
 * row may be deleted at any time (the template is then judged again). The hash covers the
 * guard revision, the tenant's data schema and allowed tables, the declared parameters and
 * the template; the rows go with their tenant. Frozen.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE gateway.admission_verdicts (
    tenant_id text NOT NULL REFERENCES gateway.tenants (id) ON DELETE CASCADE,
    template_hash text NOT NULL,
    problems jsonb NOT NULL,
    judged_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, template_hash)
  )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE gateway.admission_verdicts`.execute(db);
}
