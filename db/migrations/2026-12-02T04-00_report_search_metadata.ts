import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Optional words for tool search (issue 19): `synonyms` (what users call the report) and
 * `example_questions` (questions it answers). Nullable, so existing rows and writers are
 * untouched; the existing triggers bump the report's version and the catalog's on a change,
 * so an edit reaches every instance's search index like any other field. Frozen.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE gateway.reports ADD COLUMN synonyms text[], ADD COLUMN example_questions text[]`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .withSchema('gateway')
    .alterTable('reports')
    .dropColumn('synonyms')
    .dropColumn('example_questions')
    .execute();
}
