import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from './database';

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
