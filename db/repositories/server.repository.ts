import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../database';

/*
 * Statements about the database server rather than the metadata it holds: a liveness probe,
 * a notification to the other instances, the cancel of a backend's running statement.
 */

/** Resolves when the server answers a trivial statement (the health probe). */
export async function selectOne(db: Kysely<DB>): Promise<void> {
  await sql`SELECT 1`.execute(db);
}

/** NOTIFY `channel` with `payload` (the listeners are other gateway instances). */
export async function notify(db: Kysely<DB>, channel: string, payload: string): Promise<void> {
  await sql`SELECT pg_notify(${channel}, ${payload})`.execute(db);
}

/**
 * Cancels the active statements of the sessions one request runs (report queries set their
 * `application_name` to `gateway trace=<trace id>`); the number of backends signalled.
 */
export async function cancelTraceStatements(db: Kysely<DB>, traceId: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    SELECT count(*) FILTER (WHERE pg_cancel_backend(pid)) AS n FROM pg_stat_activity
    WHERE application_name = ${`gateway trace=${traceId}`} AND state = 'active'
      AND pid <> pg_backend_pid()`.execute(db);
  return Number(rows[0]?.n ?? 0);
}
