import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * A report may let its rows be answered again from the result cache (issue #41) for up to a day.
 * NULL (every existing row, every writer that does not name it) and 0: never cached. The CHECK
 * keeps a plain-SQL writer within the bounds the API enforces. Frozen.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE gateway.reports ADD COLUMN IF NOT EXISTS cache_ttl_seconds integer
    CHECK (cache_ttl_seconds IS NULL OR cache_ttl_seconds BETWEEN 0 AND 86400)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE gateway.reports DROP COLUMN IF EXISTS cache_ttl_seconds`.execute(db);
}
