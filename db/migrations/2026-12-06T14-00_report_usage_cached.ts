import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * The usage table counts the calls answered from the result cache (issue #41), so the usage view
 * shows each report's cached share. Existing hours count none. Frozen.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE gateway.report_usage
    ADD COLUMN IF NOT EXISTS cached integer NOT NULL DEFAULT 0 CHECK (cached >= 0)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE gateway.report_usage DROP COLUMN IF EXISTS cached`.execute(db);
}
