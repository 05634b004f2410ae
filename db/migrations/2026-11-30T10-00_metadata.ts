import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Metadata schema, catalog version and change notification. Frozen: never edit after it
 * has run somewhere; add a new migration instead.
 */
const TENANT_TABLES = [
  'datasources',
  'reports',
  'report_filters',
  'report_fields',
  'business_contexts',
  'context_members',
  'roles',
  'role_grants',
  'user_roles',
  'user_grants',
];

const UP = [
  `CREATE SCHEMA IF NOT EXISTS gateway`,
  `CREATE TABLE gateway.tenants (
     id text PRIMARY KEY CHECK (id ~ '^[a-z][a-z0-9_]*$'),
     name text NOT NULL,
     catalog_version bigint NOT NULL DEFAULT 1,
     created_at timestamptz NOT NULL DEFAULT now())`,
  `CREATE TABLE gateway.datasources (
     tenant_id text PRIMARY KEY REFERENCES gateway.tenants (id) ON DELETE CASCADE,
     data_schema text NOT NULL CHECK (data_schema ~ '^[a-z][a-z0-9_]*$'),
     allowed_tables text[] NOT NULL DEFAULT '{}')`,
  `CREATE TABLE gateway.reports (
     tenant_id text NOT NULL REFERENCES gateway.tenants (id) ON DELETE CASCADE,
     id text NOT NULL CHECK (id ~ '^[a-z][a-z0-9_]*$'),
     name text NOT NULL,
     description text NOT NULL,
     sql_template text NOT NULL,
     category text NOT NULL,
     status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
     version integer NOT NULL DEFAULT 1,
     updated_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (tenant_id, id))`,
  `CREATE TABLE gateway.report_filters (
     tenant_id text NOT NULL,
     report_id text NOT NULL,
     name text NOT NULL,
     type text NOT NULL,
     description text NOT NULL DEFAULT '',
     required boolean NOT NULL DEFAULT false,
     enum_values text[],
     default_value jsonb,
     position integer NOT NULL DEFAULT 0,
     PRIMARY KEY (tenant_id, report_id, name),
     FOREIGN KEY (tenant_id, report_id) REFERENCES gateway.reports (tenant_id, id) ON DELETE CASCADE)`,
  `CREATE TABLE gateway.report_fields (
     tenant_id text NOT NULL,
     report_id text NOT NULL,
     name text NOT NULL,
     type text NOT NULL,
     description text NOT NULL DEFAULT '',
     position integer NOT NULL DEFAULT 0,
     PRIMARY KEY (tenant_id, report_id, name),
     FOREIGN KEY (tenant_id, report_id) REFERENCES gateway.reports (tenant_id, id) ON DELETE CASCADE)`,
  `CREATE TABLE gateway.business_contexts (
     tenant_id text NOT NULL REFERENCES gateway.tenants (id) ON DELETE CASCADE,
     name text NOT NULL CHECK (name ~ '^[A-Z][A-Z0-9_]*$'),
     description text NOT NULL DEFAULT '',
     PRIMARY KEY (tenant_id, name))`,
  `CREATE TABLE gateway.context_members (
     id serial PRIMARY KEY,
     tenant_id text NOT NULL,
     context text NOT NULL,
     category text,
     report_id text,
     CHECK ((category IS NULL) <> (report_id IS NULL)),
     FOREIGN KEY (tenant_id, context) REFERENCES gateway.business_contexts (tenant_id, name) ON DELETE CASCADE)`,
  `CREATE TABLE gateway.roles (
     tenant_id text NOT NULL REFERENCES gateway.tenants (id) ON DELETE CASCADE,
     name text NOT NULL CHECK (name ~ '^[a-z][a-z0-9_]*$'),
     description text NOT NULL DEFAULT '',
     is_admin boolean NOT NULL DEFAULT false,
     PRIMARY KEY (tenant_id, name))`,
  `CREATE TABLE gateway.role_grants (
     id serial PRIMARY KEY,
     tenant_id text NOT NULL,
     role text NOT NULL,
     category text,
     report_id text,
     CHECK ((category IS NULL) <> (report_id IS NULL)),
     FOREIGN KEY (tenant_id, role) REFERENCES gateway.roles (tenant_id, name) ON DELETE CASCADE)`,
  `CREATE TABLE gateway.user_roles (
     tenant_id text NOT NULL,
     user_id text NOT NULL,
     role text NOT NULL,
     PRIMARY KEY (tenant_id, user_id, role),
     FOREIGN KEY (tenant_id, role) REFERENCES gateway.roles (tenant_id, name) ON DELETE CASCADE)`,
  `CREATE TABLE gateway.user_grants (
     id serial PRIMARY KEY,
     tenant_id text NOT NULL REFERENCES gateway.tenants (id) ON DELETE CASCADE,
     user_id text NOT NULL,
     category text,
     report_id text,
     effect text NOT NULL CHECK (effect IN ('allow', 'deny')),
     CHECK ((category IS NULL) <> (report_id IS NULL)))`,
  `CREATE INDEX role_grants_tenant_role ON gateway.role_grants (tenant_id, role)`,
  `CREATE INDEX user_grants_tenant_user ON gateway.user_grants (tenant_id, user_id)`,
  // Any metadata change bumps the tenant's catalog version and notifies listeners on
  // commit. The payload is the tenant id alone, so Postgres folds the many notifications
  // of a bulk change into one per tenant and transaction.
  `CREATE FUNCTION gateway.bump_catalog_version() RETURNS trigger LANGUAGE plpgsql AS $fn$
   DECLARE
     changed_tenant text;
   BEGIN
     IF TG_OP = 'DELETE' THEN changed_tenant := OLD.tenant_id; ELSE changed_tenant := NEW.tenant_id; END IF;
     UPDATE gateway.tenants SET catalog_version = catalog_version + 1 WHERE id = changed_tenant;
     PERFORM pg_notify('gateway_catalog', changed_tenant);
     IF TG_OP = 'UPDATE' AND OLD.tenant_id IS DISTINCT FROM NEW.tenant_id THEN
       UPDATE gateway.tenants SET catalog_version = catalog_version + 1 WHERE id = OLD.tenant_id;
       PERFORM pg_notify('gateway_catalog', OLD.tenant_id);
     END IF;
     RETURN NULL;
   END
   $fn$`,
  // A report's version names one rendering of it (validator, schema); filter and field
  // edits count as edits of their report.
  `CREATE FUNCTION gateway.touch_report() RETURNS trigger LANGUAGE plpgsql AS $fn$
   BEGIN
     NEW.version := OLD.version + 1;
     NEW.updated_at := now();
     RETURN NEW;
   END
   $fn$`,
  `CREATE TRIGGER reports_touch BEFORE UPDATE ON gateway.reports
     FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gateway.touch_report()`,
  `CREATE FUNCTION gateway.touch_parent_report() RETURNS trigger LANGUAGE plpgsql AS $fn$
   DECLARE
     r record;
   BEGIN
     IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
     UPDATE gateway.reports SET updated_at = clock_timestamp()
       WHERE tenant_id = r.tenant_id AND id = r.report_id;
     RETURN NULL;
   END
   $fn$`,
  `CREATE TRIGGER report_filters_touch AFTER INSERT OR UPDATE OR DELETE ON gateway.report_filters
     FOR EACH ROW EXECUTE FUNCTION gateway.touch_parent_report()`,
  `CREATE TRIGGER report_fields_touch AFTER INSERT OR UPDATE OR DELETE ON gateway.report_fields
     FOR EACH ROW EXECUTE FUNCTION gateway.touch_parent_report()`,
  ...TENANT_TABLES.map(
    (
      table,
    ) => `CREATE TRIGGER ${table}_catalog_version AFTER INSERT OR UPDATE OR DELETE ON gateway.${table}
       FOR EACH ROW EXECUTE FUNCTION gateway.bump_catalog_version()`,
  ),
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of UP) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('DROP SCHEMA gateway CASCADE').execute(db);
}
