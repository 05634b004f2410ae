import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/**
 * Operations: per-report execution limits (NULL = the gateway-wide setting) and the trace id
 * of the request that made a meta_tool proposal. Frozen: add a new migration to change it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE gateway.reports
    ADD COLUMN statement_timeout_ms integer CHECK (statement_timeout_ms BETWEEN 100 AND 300000),
    ADD COLUMN max_rows integer CHECK (max_rows BETWEEN 1 AND 100),
    ADD COLUMN max_result_bytes integer CHECK (max_result_bytes BETWEEN 1024 AND 16777216)`.execute(
    db,
  );
  await sql`ALTER TABLE gateway.tool_proposals ADD COLUMN trace_id text`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE gateway.tool_proposals DROP COLUMN trace_id`.execute(db);
  await sql`ALTER TABLE gateway.reports
    DROP COLUMN statement_timeout_ms, DROP COLUMN max_rows, DROP COLUMN max_result_bytes`.execute(
    db,
  );
}
