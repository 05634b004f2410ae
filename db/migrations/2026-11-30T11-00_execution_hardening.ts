import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Defence in depth under the SQL guard. Report SQL runs as a per-tenant NOLOGIN role with
 * SELECT on the tenant's whitelisted tables only, and functions a READ ONLY transaction
 * does not stop are closed to PUBLIC. Frozen: add a new migration to change it.
 */
const DANGEROUS_FUNCTIONS = [
  'set_config',
  'pg_sleep',
  'pg_sleep_for',
  'pg_sleep_until',
  'pg_advisory_lock',
  'pg_advisory_lock_shared',
  'pg_try_advisory_lock',
  'pg_try_advisory_lock_shared',
  'pg_advisory_xact_lock',
  'pg_advisory_xact_lock_shared',
  'pg_try_advisory_xact_lock',
  'pg_try_advisory_xact_lock_shared',
  'pg_advisory_unlock',
  'pg_advisory_unlock_all',
  'pg_advisory_unlock_shared',
  'pg_notify',
  'lo_from_bytea',
  'lo_import',
  'lo_export',
  'lo_create',
  'lo_creat',
  'lo_unlink',
  'lo_put',
  'lo_open',
  'lo_get',
  'pg_terminate_backend',
  'pg_cancel_backend',
  'query_to_xml',
  'query_to_xmlschema',
  'query_to_xml_and_xmlschema',
  'cursor_to_xml',
  'cursor_to_xmlschema',
  'table_to_xml',
  'table_to_xmlschema',
  'table_to_xml_and_xmlschema',
  'schema_to_xml',
  'database_to_xml',
  'nextval',
  'setval',
  'pg_reload_conf',
  'pg_read_file',
  'pg_read_binary_file',
  'pg_ls_dir',
  'pg_stat_file',
];

const UP = [
  // The gateway's own user keeps EXECUTE (it needs set_config for the session settings
  // and nextval for serial ids); everybody else, the reader roles included, loses it.
  `DO $do$
   DECLARE
     f regprocedure;
   BEGIN
     FOR f IN
       SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'pg_catalog' AND p.proname = ANY (ARRAY['${DANGEROUS_FUNCTIONS.join("','")}'])
     LOOP
       EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I', f, current_user);
       EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f);
     END LOOP;
   EXCEPTION WHEN insufficient_privilege THEN
     RAISE WARNING 'not allowed to revoke EXECUTE on dangerous functions; ask a superuser to run this migration';
   END
   $do$`,
  `DO $do$
   BEGIN
     EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
   EXCEPTION WHEN insufficient_privilege THEN
     RAISE WARNING 'not allowed to revoke TEMPORARY on this database';
   END
   $do$`,
  `CREATE FUNCTION gateway.reader_role(tenant text) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
     SELECT 'gw_reader_' || tenant
   $fn$`,
  // (Re)creates the tenant's reader role and its grants whenever the datasource changes.
  `CREATE FUNCTION gateway.sync_reader_role() RETURNS trigger LANGUAGE plpgsql AS $fn$
   DECLARE
     role_name text := gateway.reader_role(NEW.tenant_id);
     entry text;
     target regclass;
   BEGIN
     IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = role_name) THEN
       EXECUTE format('CREATE ROLE %I NOLOGIN NOINHERIT', role_name);
     END IF;
     EXECUTE format('GRANT %I TO %I', role_name, current_user);
     IF to_regnamespace(NEW.data_schema) IS NULL THEN
       RETURN NULL;
     END IF;
     EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA %I FROM %I', NEW.data_schema, role_name);
     EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', NEW.data_schema, role_name);
     FOREACH entry IN ARRAY NEW.allowed_tables LOOP
       IF position('.' IN entry) > 0 THEN
         target := to_regclass(format('%I.%I', split_part(entry, '.', 1), split_part(entry, '.', 2)));
       ELSE
         target := to_regclass(format('%I.%I', NEW.data_schema, entry));
       END IF;
       IF target IS NOT NULL THEN
         EXECUTE format('GRANT SELECT ON %s TO %I', target, role_name);
       END IF;
     END LOOP;
     RETURN NULL;
   END
   $fn$`,
  `CREATE TRIGGER datasources_reader_role AFTER INSERT OR UPDATE ON gateway.datasources
     FOR EACH ROW EXECUTE FUNCTION gateway.sync_reader_role()`,
  // Datasources that exist already get their role now.
  `UPDATE gateway.datasources SET allowed_tables = allowed_tables`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of UP) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('DROP TRIGGER datasources_reader_role ON gateway.datasources').execute(db);
  await sql.raw('DROP FUNCTION gateway.sync_reader_role()').execute(db);
  await sql.raw('DROP FUNCTION gateway.reader_role(text)').execute(db);
}
