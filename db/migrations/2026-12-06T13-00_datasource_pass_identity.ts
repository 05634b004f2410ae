import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * A tenant data source may pass the caller's identity to its server (issue #42): every session
 * on it then sets `request.jwt.claims` (PostgREST's convention) so the warehouse's own row-level
 * security applies. Off for every existing source and every writer that does not name it. Frozen.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE gateway.tenant_datasources
    ADD COLUMN IF NOT EXISTS pass_identity boolean NOT NULL DEFAULT false`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE gateway.tenant_datasources DROP COLUMN IF EXISTS pass_identity`.execute(db);
}
