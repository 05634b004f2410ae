import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Report calls run as named prepared statements (ADR 0005), and one pooled connection serves
 * every tenant: pg_prepared_statements would show SQL that got past the guard the text of other
 * tenants' reports prepared on the same connection. Closed to PUBLIC (the reader roles); the
 * gateway's own user keeps it. Frozen.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql
    .raw(
      `DO $do$
   BEGIN
     EXECUTE format('GRANT SELECT ON pg_catalog.pg_prepared_statements TO %I', current_user);
     EXECUTE format('GRANT EXECUTE ON FUNCTION pg_catalog.pg_prepared_statement() TO %I', current_user);
     REVOKE SELECT ON pg_catalog.pg_prepared_statements FROM PUBLIC;
     REVOKE EXECUTE ON FUNCTION pg_catalog.pg_prepared_statement() FROM PUBLIC;
   EXCEPTION WHEN insufficient_privilege THEN
     RAISE WARNING 'not allowed to revoke pg_prepared_statements from PUBLIC; ask a superuser to run this migration';
   END
   $do$`,
    )
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('GRANT SELECT ON pg_catalog.pg_prepared_statements TO PUBLIC').execute(db);
  await sql
    .raw('GRANT EXECUTE ON FUNCTION pg_catalog.pg_prepared_statement() TO PUBLIC')
    .execute(db);
}
