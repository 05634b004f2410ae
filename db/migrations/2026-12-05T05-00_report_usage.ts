import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * How each tool of a tenant is used (issue #33), per hour and by how the caller found it
 * (`listed`, `selected` by POST /v1/tools/select, `searched` with search_tools): calls,
 * errors, empty first pages and a latency histogram (`latency_buckets[i]` counts calls of at
 * most `LATENCY_BOUNDS_MS[i]`, the last one the rest). Never an argument or a row value.
 * Bounded: rows older than USAGE_RETENTION_DAYS are deleted by the gateway. Frozen.
 */
const UP = [
  `CREATE TABLE gateway.report_usage (
     tenant_id text NOT NULL REFERENCES gateway.tenants (id) ON DELETE CASCADE,
     tool text NOT NULL CHECK (length(tool) <= 128),
     hour timestamptz NOT NULL,
     found_via text NOT NULL CHECK (found_via IN ('listed', 'selected', 'searched')),
     calls integer NOT NULL CHECK (calls >= 0),
     errors integer NOT NULL CHECK (errors >= 0),
     empty integer NOT NULL CHECK (empty >= 0),
     latency_ms_sum double precision NOT NULL,
     latency_buckets integer[] NOT NULL,
     PRIMARY KEY (tenant_id, tool, hour, found_via))`,
  `CREATE INDEX report_usage_hour ON gateway.report_usage (hour)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of UP) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('DROP TABLE gateway.report_usage').execute(db);
}
