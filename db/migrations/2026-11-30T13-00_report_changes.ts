import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Which reports changed since a catalog version, without reading every report. Each report
 * row records the catalog version its last change claimed (`changed_in`), and a removed
 * report leaves a tombstone with the version of its removal. A gateway that holds a tenant
 * at version V reads only rows with `changed_in > V` and tombstones with `removed_in > V`,
 * so a change in a 10,000-report tenant costs what changed.
 *
 * The version is claimed by updating the tenant row, whose lock is held until commit: two
 * transactions changing one tenant claim versions in commit order, so a reader that saw
 * version V can never later find a committed change stamped V or lower.
 *
 * Rows older than this migration have `changed_in` 0: a gateway reads them on its first load of
 * the tenant, and refreshes never need them again. Writers that turn triggers off (session_replication_role = replica) must stamp
 * `changed_in` themselves. Frozen: add a new migration to change it.
 */
const UP = [
  `ALTER TABLE gateway.reports ADD COLUMN changed_in bigint NOT NULL DEFAULT 0`,
  `CREATE INDEX reports_tenant_changed_in ON gateway.reports (tenant_id, changed_in)`,
  `CREATE TABLE gateway.report_removals (
     tenant_id text NOT NULL REFERENCES gateway.tenants (id) ON DELETE CASCADE,
     report_id text NOT NULL,
     removed_in bigint NOT NULL,
     PRIMARY KEY (tenant_id, report_id))`,
  `CREATE INDEX report_removals_tenant_removed_in ON gateway.report_removals (tenant_id, removed_in)`,
  `CREATE FUNCTION gateway.stamp_report_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
   DECLARE
     claimed bigint;
   BEGIN
     IF TG_OP = 'UPDATE' AND OLD.tenant_id IS DISTINCT FROM NEW.tenant_id THEN
       UPDATE gateway.tenants SET catalog_version = catalog_version + 1 WHERE id = OLD.tenant_id
         RETURNING catalog_version INTO claimed;
       IF FOUND THEN
         INSERT INTO gateway.report_removals (tenant_id, report_id, removed_in)
           VALUES (OLD.tenant_id, OLD.id, claimed)
           ON CONFLICT (tenant_id, report_id) DO UPDATE SET removed_in = EXCLUDED.removed_in;
       END IF;
     END IF;
     UPDATE gateway.tenants SET catalog_version = catalog_version + 1 WHERE id = NEW.tenant_id
       RETURNING catalog_version INTO claimed;
     NEW.changed_in := coalesce(claimed, 0);
     IF TG_OP = 'INSERT' THEN
       DELETE FROM gateway.report_removals WHERE tenant_id = NEW.tenant_id AND report_id = NEW.id;
     END IF;
     RETURN NEW;
   END
   $fn$`,
  `CREATE FUNCTION gateway.record_report_removal() RETURNS trigger LANGUAGE plpgsql AS $fn$
   DECLARE
     claimed bigint;
   BEGIN
     UPDATE gateway.tenants SET catalog_version = catalog_version + 1 WHERE id = OLD.tenant_id
       RETURNING catalog_version INTO claimed;
     -- a tenant being deleted takes its reports and tombstones with it
     IF FOUND THEN
       INSERT INTO gateway.report_removals (tenant_id, report_id, removed_in)
         VALUES (OLD.tenant_id, OLD.id, claimed)
         ON CONFLICT (tenant_id, report_id) DO UPDATE SET removed_in = EXCLUDED.removed_in;
     END IF;
     RETURN NULL;
   END
   $fn$`,
  // Named to fire before reports_touch (BEFORE triggers run in name order); WHEN sees the
  // row as the statement left it, so an update that changes nothing claims nothing.
  `CREATE TRIGGER reports_changed_insert BEFORE INSERT ON gateway.reports
     FOR EACH ROW EXECUTE FUNCTION gateway.stamp_report_change()`,
  `CREATE TRIGGER reports_changed_update BEFORE UPDATE ON gateway.reports
     FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION gateway.stamp_report_change()`,
  `CREATE TRIGGER reports_removed AFTER DELETE ON gateway.reports
     FOR EACH ROW EXECUTE FUNCTION gateway.record_report_removal()`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of UP) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('DROP TRIGGER reports_removed ON gateway.reports').execute(db);
  await sql.raw('DROP TRIGGER reports_changed_update ON gateway.reports').execute(db);
  await sql.raw('DROP TRIGGER reports_changed_insert ON gateway.reports').execute(db);
  await sql.raw('DROP FUNCTION gateway.record_report_removal()').execute(db);
  await sql.raw('DROP FUNCTION gateway.stamp_report_change()').execute(db);
  await sql.raw('DROP TABLE gateway.report_removals').execute(db);
  await sql.raw('ALTER TABLE gateway.reports DROP COLUMN changed_in').execute(db);
}
