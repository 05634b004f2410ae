import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * A report may declare that it always runs as a task (issue #29): a call from an MCP 2026-07-28
 * client that declares the Tasks extension is answered with a task at once instead of after
 * MCP_TASK_AFTER_MS; every other client gets the synchronous answer as before. A boolean, so
 * a row can hold nothing malformed (Postgres refuses anything else at the INSERT); existing
 * rows and writers that do not name it get false. Frozen.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE gateway.reports ADD COLUMN IF NOT EXISTS run_as_task boolean NOT NULL DEFAULT false`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE gateway.reports DROP COLUMN IF EXISTS run_as_task`.execute(db);
}
