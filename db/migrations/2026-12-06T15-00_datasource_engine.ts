import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * A tenant data source speaks Postgres or MySQL's protocol (issue #42): the engine its URL names,
 * kept beside the sealed connection so the catalog can judge a report by its dialect without
 * opening the seal. Every existing source is Postgres. Frozen.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE gateway.tenant_datasources
    ADD COLUMN IF NOT EXISTS engine text NOT NULL DEFAULT 'postgres'
      CONSTRAINT tenant_datasources_engine_known CHECK (engine IN ('postgres', 'mysql'))`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE gateway.tenant_datasources DROP COLUMN IF EXISTS engine`.execute(db);
}
