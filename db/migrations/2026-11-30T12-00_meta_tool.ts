import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * meta_tool: proposals (the human gate's queue), installed generated tools (served by every
 * instance; a change bumps the catalog version like any metadata) and an audit log.
 * Frozen: add a new migration to change it.
 */
const UP = [
  `CREATE TABLE gateway.tool_proposals (
     id uuid PRIMARY KEY,
     tenant_id text NOT NULL REFERENCES gateway.tenants (id) ON DELETE CASCADE,
     name text NOT NULL CHECK (name ~ '^[a-z][a-z0-9_]*$'),
     description text NOT NULL DEFAULT '',
     source text NOT NULL,
     sha256 text NOT NULL,
     test_args jsonb,
     proposed_by text NOT NULL,
     status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'installing', 'rejected', 'failed', 'installed')),
     reviewed_by text,
     outcome text,
     created_at timestamptz NOT NULL DEFAULT now(),
     decided_at timestamptz)`,
  // At most one open (pending or installing) proposal per name and tenant, whatever the
  // instance: two proposals of one name can never both be installed at once.
  `CREATE UNIQUE INDEX tool_proposals_one_open ON gateway.tool_proposals (tenant_id, name) WHERE status IN ('pending', 'installing')`,
  `CREATE TABLE gateway.generated_tools (
     tenant_id text NOT NULL REFERENCES gateway.tenants (id) ON DELETE CASCADE,
     name text NOT NULL CHECK (name ~ '^[a-z][a-z0-9_]*$'),
     description text NOT NULL,
     input_schema jsonb NOT NULL,
     source text NOT NULL,
     sha256 text NOT NULL,
     proposal_id uuid NOT NULL,
     approved_by text NOT NULL,
     smoke_tested boolean NOT NULL,
     smoke_preview text,
     status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
     installed_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (tenant_id, name))`,
  `CREATE TRIGGER generated_tools_catalog_version AFTER INSERT OR UPDATE OR DELETE ON gateway.generated_tools
     FOR EACH ROW EXECUTE FUNCTION gateway.bump_catalog_version()`,
  `CREATE TABLE gateway.audit_log (
     id bigserial PRIMARY KEY,
     tenant_id text NOT NULL,
     actor text NOT NULL,
     action text NOT NULL,
     subject text NOT NULL,
     detail jsonb NOT NULL DEFAULT '{}',
     at timestamptz NOT NULL DEFAULT now())`,
  `CREATE INDEX audit_log_tenant_at ON gateway.audit_log (tenant_id, at)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of UP) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['audit_log', 'generated_tools', 'tool_proposals']) {
    await sql.raw(`DROP TABLE gateway.${table}`).execute(db);
  }
}
