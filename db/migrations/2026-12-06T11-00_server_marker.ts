import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Marks the gateway's own database server (issue #37): a role that exists on the whole server
 * (roles are cluster-wide) and can log in nowhere. A tenant's data source whose server has it is
 * a gateway's own server and is refused, whatever login and database the URL names. Creating a
 * role needs CREATEROLE; without it the migration warns and the gateway still refuses its own
 * server by its start time and database (libs/registry/src/datasources/boundary/source-connect.ts).
 * Kept on `down`: other databases of the server may rely on it. Frozen.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    DO $$
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'gateway_server_marker') THEN
        CREATE ROLE gateway_server_marker NOLOGIN;
      END IF;
    EXCEPTION
      WHEN duplicate_object OR unique_violation THEN NULL;
      WHEN OTHERS THEN
        RAISE WARNING 'the server marker role could not be created (%): give the migrating login CREATEROLE, or create gateway_server_marker NOLOGIN once', SQLERRM;
    END $$`.execute(db);
}

export async function down(): Promise<void> {
  // the marker stays: other gateway databases on this server may rely on it
}
