import type { Insertable, Kysely } from 'kysely';
import type { DB, ReportFieldsTable, ReportFiltersTable, ReportsTable } from '../database';

type Owned = 'tenant_id' | 'report_id' | 'position';

/** One report as rows: the report, its filters and its fields, in order. */
export interface ReportRows {
  report: Omit<Insertable<ReportsTable>, 'tenant_id'>;
  filters: Array<Omit<Insertable<ReportFiltersTable>, Owned>>;
  fields: Array<Omit<Insertable<ReportFieldsTable>, Owned>>;
}

/**
 * Creates or replaces a report with its filters and fields, through `db` (run it inside a
 * transaction: the report and its children must change together). Returns whether the
 * report is new. The one write of report rows: the registry's ReportRepository and the
 * demo seed both go through it.
 */
export async function writeReportRows(
  db: Kysely<DB>,
  tenantId: string,
  { report, filters, fields }: ReportRows,
): Promise<boolean> {
  const g = db.withSchema('gateway');
  const existed = await g
    .selectFrom('reports')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', report.id)
    .forUpdate()
    .executeTakeFirst();
  if (existed) {
    await g
      .updateTable('reports')
      .set({ ...report, id: undefined })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', report.id)
      .execute();
  } else {
    await g
      .insertInto('reports')
      .values({ tenant_id: tenantId, ...report })
      .execute();
  }
  await replaceChildren(db, tenantId, report.id, { filters, fields });
  return !existed;
}

/** The report's filters and fields, replaced by these (positions in the order given). */
async function replaceChildren(
  db: Kysely<DB>,
  tenantId: string,
  reportId: string,
  { filters, fields }: Pick<ReportRows, 'filters' | 'fields'>,
): Promise<void> {
  const g = db.withSchema('gateway');
  for (const child of ['report_filters', 'report_fields'] as const)
    await g
      .deleteFrom(child)
      .where('tenant_id', '=', tenantId)
      .where('report_id', '=', reportId)
      .execute();
  const owned = { tenant_id: tenantId, report_id: reportId };
  if (filters.length > 0)
    await g
      .insertInto('report_filters')
      .values(filters.map((f, position) => ({ ...owned, ...f, position })))
      .execute();
  if (fields.length > 0)
    await g
      .insertInto('report_fields')
      .values(fields.map((f, position) => ({ ...owned, ...f, position })))
      .execute();
}
