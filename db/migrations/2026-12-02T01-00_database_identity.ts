import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * A random id written once, when the metadata database is created. Redis (L2) keys carry it
 * (with the database's own oid, which a copy or restore into a new database does not keep),
 * so a gateway on a recreated or restored database never reads what Redis kept for another
 * one: catalog versions start again at 1 there and would otherwise collide.
 * Frozen: add a new migration to change it.
 */
const UP = [
  `CREATE TABLE gateway.database_identity (
     id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
     one_row boolean NOT NULL DEFAULT true UNIQUE CHECK (one_row),
     created_at timestamptz NOT NULL DEFAULT now())`,
  `INSERT INTO gateway.database_identity DEFAULT VALUES`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of UP) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('DROP TABLE gateway.database_identity').execute(db);
}
