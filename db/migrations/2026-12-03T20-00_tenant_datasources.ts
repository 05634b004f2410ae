import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Tenant data sources (issue #30): a tenant's own Postgres server (and its read replicas),
 * registered with a read-only login; a report names one in `reports.datasource` (NULL: the
 * tenant's schema in this database, as before). The connection URLs, passwords included, are
 * stored only encrypted (AES-256-GCM, `connection_secret`); `connection_shown` holds them
 * without passwords, for the API. A report keeps its source from being deleted (the foreign key),
 * and every change bumps the tenant's catalog version like any other metadata. Frozen.
 */
const UP = [
  `CREATE TABLE gateway.tenant_datasources (
     tenant_id text NOT NULL REFERENCES gateway.tenants (id) ON DELETE CASCADE,
     name text NOT NULL CHECK (name ~ '^[a-z][a-z0-9_]*$' AND length(name) <= 63),
     connection_secret text NOT NULL,
     connection_shown jsonb NOT NULL,
     data_schema text NOT NULL CHECK (data_schema ~ '^[a-z_][a-z0-9_]*$'),
     allowed_tables text[] NOT NULL,
     pool_max integer NOT NULL DEFAULT 5 CHECK (pool_max BETWEEN 1 AND 100),
     statement_timeout_ms integer CHECK (statement_timeout_ms BETWEEN 1 AND 3600000),
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (tenant_id, name))`,
  `ALTER TABLE gateway.reports ADD COLUMN datasource text`,
  `ALTER TABLE gateway.reports ADD CONSTRAINT reports_datasource_fkey
     FOREIGN KEY (tenant_id, datasource) REFERENCES gateway.tenant_datasources (tenant_id, name)`,
  `CREATE INDEX reports_tenant_datasource ON gateway.reports (tenant_id, datasource)
     WHERE datasource IS NOT NULL`,
  `CREATE TRIGGER tenant_datasources_catalog_version
     AFTER INSERT OR UPDATE OR DELETE ON gateway.tenant_datasources
     FOR EACH ROW EXECUTE FUNCTION gateway.bump_catalog_version()`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of UP) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('ALTER TABLE gateway.reports DROP COLUMN datasource').execute(db);
  await sql.raw('DROP TABLE gateway.tenant_datasources').execute(db);
}
