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
 * version V can never later find a committed change stamped V or lower. A transaction
 * claims once per tenant, however many rows it changes (it used to bump per row, which made
 * one big transaction quadratic).
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
  // The version a change claims: one bump of the tenant row per transaction. The first
  // change of a transaction bumps it, records the transaction in claimed_by and holds the
  // row's lock until commit; later changes of the same transaction find their own claim and
  // reuse it, so a bulk change costs one update of the tenant row, not one per row.
  // (pg_current_xact_id is the top-level transaction: a claim rolled back with a savepoint
  // is gone with it, and the next change claims again.)
  `ALTER TABLE gateway.tenants ADD COLUMN claimed_by xid8`,
  `CREATE FUNCTION gateway.claim_catalog_version(tenant text) RETURNS bigint LANGUAGE plpgsql AS $fn$
   DECLARE
     claimed bigint;
     mine boolean;
   BEGIN
     SELECT catalog_version, claimed_by IS NOT DISTINCT FROM pg_current_xact_id() INTO claimed, mine
       FROM gateway.tenants WHERE id = tenant;
     IF NOT FOUND THEN RETURN NULL; END IF;
     IF mine THEN RETURN claimed; END IF;
     UPDATE gateway.tenants
        SET catalog_version = catalog_version + 1, claimed_by = pg_current_xact_id()
      WHERE id = tenant
      RETURNING catalog_version INTO claimed;
     RETURN claimed;
   END
   $fn$`,
  // Every metadata table's trigger (first migration) now claims through it as well.
  `CREATE OR REPLACE FUNCTION gateway.bump_catalog_version() RETURNS trigger LANGUAGE plpgsql AS $fn$
   DECLARE
     changed_tenant text;
   BEGIN
     IF TG_OP = 'DELETE' THEN changed_tenant := OLD.tenant_id; ELSE changed_tenant := NEW.tenant_id; END IF;
     PERFORM gateway.claim_catalog_version(changed_tenant);
     PERFORM pg_notify('gateway_catalog', changed_tenant);
     IF TG_OP = 'UPDATE' AND OLD.tenant_id IS DISTINCT FROM NEW.tenant_id THEN
       PERFORM gateway.claim_catalog_version(OLD.tenant_id);
       PERFORM pg_notify('gateway_catalog', OLD.tenant_id);
     END IF;
     RETURN NULL;
   END
   $fn$`,
  `CREATE FUNCTION gateway.record_removal(tenant text, report text) RETURNS void LANGUAGE plpgsql AS $fn$
   DECLARE
     claimed bigint := gateway.claim_catalog_version(tenant);
   BEGIN
     -- a tenant being deleted takes its reports and tombstones with it
     IF claimed IS NOT NULL THEN
       INSERT INTO gateway.report_removals (tenant_id, report_id, removed_in)
         VALUES (tenant, report, claimed)
         ON CONFLICT (tenant_id, report_id) DO UPDATE SET removed_in = EXCLUDED.removed_in;
     END IF;
   END
   $fn$`,
  `CREATE FUNCTION gateway.stamp_report_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
   BEGIN
     IF TG_OP = 'UPDATE' AND (OLD.tenant_id, OLD.id) IS DISTINCT FROM (NEW.tenant_id, NEW.id) THEN
       PERFORM gateway.record_removal(OLD.tenant_id, OLD.id);
     END IF;
     NEW.changed_in := coalesce(gateway.claim_catalog_version(NEW.tenant_id), 0);
     IF TG_OP = 'INSERT' THEN
       DELETE FROM gateway.report_removals WHERE tenant_id = NEW.tenant_id AND report_id = NEW.id;
     END IF;
     RETURN NEW;
   END
   $fn$`,
  `CREATE FUNCTION gateway.record_report_removal() RETURNS trigger LANGUAGE plpgsql AS $fn$
   BEGIN
     PERFORM gateway.record_removal(OLD.tenant_id, OLD.id);
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
  for (const statement of [
    'DROP TRIGGER reports_removed ON gateway.reports',
    'DROP TRIGGER reports_changed_update ON gateway.reports',
    'DROP TRIGGER reports_changed_insert ON gateway.reports',
    'DROP FUNCTION gateway.record_report_removal()',
    'DROP FUNCTION gateway.stamp_report_change()',
    'DROP FUNCTION gateway.record_removal(text, text)',
    `CREATE OR REPLACE FUNCTION gateway.bump_catalog_version() RETURNS trigger LANGUAGE plpgsql AS $fn$
     DECLARE
       changed_tenant text;
     BEGIN
       IF TG_OP = 'DELETE' THEN changed_tenant := OLD.tenant_id; ELSE changed_tenant := NEW.tenant_id; END IF;
       UPDATE gateway.tenants SET catalog_version = catalog_version + 1 WHERE id = changed_tenant;
       PERFORM pg_notify('gateway_catalog', changed_tenant);
       IF TG_OP = 'UPDATE' AND OLD.tenant_id IS DISTINCT FROM NEW.tenant_id THEN
         UPDATE gateway.tenants SET catalog_version = catalog_version + 1 WHERE id = OLD.tenant_id;
         PERFORM pg_notify('gateway_catalog', OLD.tenant_id);
       END IF;
       RETURN NULL;
     END
     $fn$`,
    'DROP FUNCTION gateway.claim_catalog_version(text)',
    'DROP TABLE gateway.report_removals',
    'ALTER TABLE gateway.tenants DROP COLUMN claimed_by',
    'ALTER TABLE gateway.reports DROP COLUMN changed_in',
  ])
    await sql.raw(statement).execute(db);
}
