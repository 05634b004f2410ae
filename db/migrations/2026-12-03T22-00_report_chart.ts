import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * A report may say how its rows are best drawn (issue #33): `{"type": "bar"|"line"|"area"|
 * "pie"|"table", "x": field, "y": [fields], "series": field}`, checked against its output
 * fields when the registry loads it (a hint that does not fit keeps the report from being
 * served, with the reason). NULL: a chart inferred from the fields. Frozen.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE gateway.reports ADD COLUMN chart jsonb`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE gateway.reports DROP COLUMN chart`.execute(db);
}
