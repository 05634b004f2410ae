import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Which tool a user called after a select or a search_tools (issue #31): the question that led
 * to it becomes searchable text of that tool, for that tenant only, weighed down by age. Rows
 * go with their tenant. Not catalog metadata: no catalog-version trigger. Frozen.
 */
const UP = [
  `CREATE TABLE gateway.tool_usage (
     id bigserial PRIMARY KEY,
     tenant_id text NOT NULL REFERENCES gateway.tenants (id) ON DELETE CASCADE,
     user_id text NOT NULL,
     query text NOT NULL CHECK (length(query) BETWEEN 1 AND 2000),
     tool_name text NOT NULL CHECK (length(tool_name) BETWEEN 1 AND 128),
     source text NOT NULL CHECK (source IN ('select', 'search_tools')),
     used_at timestamptz NOT NULL DEFAULT now())`,
  `CREATE INDEX tool_usage_tenant_recent ON gateway.tool_usage (tenant_id, used_at DESC)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of UP) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE gateway.tool_usage`.execute(db);
}
