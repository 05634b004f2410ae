import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * meta_tool v2: who proposed with which roles and claims (the smoke call runs as the
 * proposer), per-tool call statistics (no trigger: counting calls is not a catalog change),
 * and the per-tenant switch (a change is a catalog change, so it bumps the version).
 */
const UP = [
  `ALTER TABLE gateway.tool_proposals
     ADD COLUMN proposer_roles jsonb NOT NULL DEFAULT '[]',
     ADD COLUMN proposer_claims jsonb NOT NULL DEFAULT '{}'`,
  `CREATE TABLE gateway.generated_tool_stats (
     tenant_id text NOT NULL REFERENCES gateway.tenants (id) ON DELETE CASCADE,
     name text NOT NULL,
     calls bigint NOT NULL DEFAULT 0,
     errors bigint NOT NULL DEFAULT 0,
     last_error text,
     last_error_at timestamptz,
     PRIMARY KEY (tenant_id, name))`,
  `CREATE TABLE gateway.meta_tool_settings (
     tenant_id text PRIMARY KEY REFERENCES gateway.tenants (id) ON DELETE CASCADE,
     enabled boolean NOT NULL,
     updated_by text NOT NULL,
     updated_at timestamptz NOT NULL DEFAULT now())`,
  `CREATE TRIGGER meta_tool_settings_catalog_version AFTER INSERT OR UPDATE OR DELETE ON gateway.meta_tool_settings
     FOR EACH ROW EXECUTE FUNCTION gateway.bump_catalog_version()`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of UP) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('DROP TABLE gateway.meta_tool_settings').execute(db);
  await sql.raw('DROP TABLE gateway.generated_tool_stats').execute(db);
  await sql
    .raw(
      'ALTER TABLE gateway.tool_proposals DROP COLUMN proposer_roles, DROP COLUMN proposer_claims',
    )
    .execute(db);
}
