import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * A report's version counts its changes, not the rows a change wrote (issue #39: untouched demo
 * reports showed versions 5 to 9). A filter or field row touched its report with
 * `clock_timestamp()`, a new instant for every row, so one write of a report with four filters
 * and fields bumped its version five times. With `now()`, the transaction's start, the first
 * touch of a transaction changes the report row (its version +1, as before) and every later
 * one in the same transaction leaves it as it is (`reports_touch` fires only on a real change).
 * A filter changed in a transaction of its own still bumps its report once. Frozen.
 */
const touchParent = (clock: 'now()' | 'clock_timestamp()') => `
  CREATE OR REPLACE FUNCTION gateway.touch_parent_report() RETURNS trigger LANGUAGE plpgsql AS $fn$
  DECLARE
    r record;
  BEGIN
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    UPDATE gateway.reports SET updated_at = ${clock}
      WHERE tenant_id = r.tenant_id AND id = r.report_id;
    RETURN NULL;
  END
  $fn$`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(touchParent('now()')).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw(touchParent('clock_timestamp()')).execute(db);
}
