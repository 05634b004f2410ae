import { performance } from 'node:perf_hooks';
import type pg from 'pg';

/**
 * Synthetic tenants and reports, inserted in bulk with SQL. Every report has its own valid
 * template over the tenant's data schema (the demo tenant_acme data is reused): the same
 * query with the report's number as a literal, so no two templates share a hash and
 * memoised admission cannot make a big catalog look cheap (issue 17). Reports 1-5 are in
 * category vis5, 6-50 in vis50, the rest in bulk. Roles: five (vis5),
 * fifty (vis5 + vis50), admin (everything).
 */
/** Report number i's template, as SQL over the generate_series column i. */
const TEMPLATE_SQL = `'SELECT count(*) AS n FROM orders o WHERE (:region IS NULL OR o.region = :region) AND ' || i || ' > 0'`;
export const ALLOWED_TABLES = '{orders,customers,products,order_items,inventory}';

/** Tenants with a datasource (its trigger creates the gw_reader_<tenant> role), roles, grants. */
export async function addTenants(c: pg.Client, ids: string[]): Promise<void> {
  await c.query('BEGIN');
  try {
    await c.query(
      `INSERT INTO gateway.tenants (id, name) SELECT t, 'Bench ' || t FROM unnest($1::text[]) t`,
      [ids],
    );
    await c.query(
      `INSERT INTO gateway.datasources (tenant_id, data_schema, allowed_tables)
       SELECT t, 'tenant_acme', $2::text[] FROM unnest($1::text[]) t`,
      [ids, ALLOWED_TABLES],
    );
    await c.query(
      `INSERT INTO gateway.roles (tenant_id, name, description, is_admin)
       SELECT t, r.name, 'bench', r.admin FROM unnest($1::text[]) t,
         (VALUES ('admin', true), ('five', false), ('fifty', false)) AS r(name, admin)`,
      [ids],
    );
    await c.query(
      `INSERT INTO gateway.role_grants (tenant_id, role, category)
       SELECT t, g.role, g.category FROM unnest($1::text[]) t,
         (VALUES ('five', 'vis5'), ('fifty', 'vis5'), ('fifty', 'vis50')) AS g(role, category)`,
      [ids],
    );
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK');
    throw err;
  }
}

const REPORT_ROWS = `FROM unnest($1::text[]) t, generate_series($2::int, $3::int) i`;
const REPORT_ID = `'r' || lpad(i::text, 6, '0')`;

/**
 * Reports from..to (numbering within the tenant) for each tenant, in one transaction.
 * The per-row catalog triggers are off for this session (session_replication_role =
 * replica; they cost about 0.4 ms per report, see measureTriggerInserts), so the
 * transaction bumps each tenant's catalog_version, stamps the rows' changed_in with it and
 * sends its NOTIFY itself, as the triggers would have. Returns the milliseconds it took.
 */
export async function addReports(
  c: pg.Client,
  tenants: string[],
  from: number,
  to: number,
): Promise<number> {
  const t0 = performance.now();
  const args = [tenants, from, to];
  await c.query('BEGIN');
  try {
    await c.query('SET LOCAL session_replication_role = replica');
    // The version bump first (it locks the tenant rows); the rows are stamped with it.
    await c.query(
      `UPDATE gateway.tenants SET catalog_version = catalog_version + 1 WHERE id = ANY($1::text[])`,
      [tenants],
    );
    await c.query(
      `INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category, changed_in)
       SELECT t, ${REPORT_ID}, 'Synthetic report ' || i,
              'Synthetic report number ' || i || ' of ' || t || ': number of orders, optionally in one region.',
              ${TEMPLATE_SQL}, CASE WHEN i <= 5 THEN 'vis5' WHEN i <= 50 THEN 'vis50' ELSE 'bulk' END,
              (SELECT catalog_version FROM gateway.tenants WHERE id = t)
       ${REPORT_ROWS}`,
      args,
    );
    await insertFilterAndField(c, args);
    await c.query(`SELECT pg_notify('gateway_catalog', t) FROM unnest($1::text[]) t`, [tenants]);
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK');
    throw err;
  }
  return performance.now() - t0;
}

/**
 * The same insert with the per-row triggers on (plain SQL as an operator would run it),
 * n reports in one transaction, for the record: the transaction claims the tenant's
 * catalog version once, so its cost should grow with n (it grew with n² before the
 * report-changes migration, when every row updated the tenants row again).
 */
export async function measureTriggerInserts(
  c: pg.Client,
  tenant: string,
  from: number,
  n: number,
): Promise<number> {
  const t0 = performance.now();
  const args = [[tenant], from, from + n - 1];
  await c.query('BEGIN');
  try {
    await c.query(
      `INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
       SELECT t, ${REPORT_ID}, 'Trigger probe ' || i, 'Trigger probe report.', ${TEMPLATE_SQL}, 'bulk' ${REPORT_ROWS}`,
      args,
    );
    await insertFilterAndField(c, args);
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK');
    throw err;
  }
  return performance.now() - t0;
}

/** The one filter (region) and one field (n) every synthetic report declares. */
async function insertFilterAndField(c: pg.Client, args: unknown[]): Promise<void> {
  await c.query(
    `INSERT INTO gateway.report_filters (tenant_id, report_id, name, type, description, enum_values)
     SELECT t, ${REPORT_ID}, 'region', 'enum', 'sales region', '{east,west,north,south}' ${REPORT_ROWS}`,
    args,
  );
  await c.query(
    `INSERT INTO gateway.report_fields (tenant_id, report_id, name, type, description)
     SELECT t, ${REPORT_ID}, 'n', 'integer', 'number of orders' ${REPORT_ROWS}`,
    args,
  );
}
