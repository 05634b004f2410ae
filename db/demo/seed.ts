import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../database';
import { DEMO_CONTEXTS, DEMO_REPORTS, DEMO_ROLES, DEMO_TABLES, DEMO_TENANTS } from './demo-catalog';
import type { DemoReport } from './demo-catalog';
import { DEMO_CHARTS } from './demo-chart-hints';
import { demoDataStatements } from './demo-data';
import { writeReportRows } from '../repositories/report-rows.repository';
import type { ReportRows } from '../repositories/report-rows.repository';
import { insertContext, insertRole, replaceTenant } from '../repositories/tenant.repository';

export function tenantDataSchema(tenantId: string): string {
  return `tenant_${tenantId}`;
}

/** Replaces the demo tenants (metadata and data) with a fresh copy, in one transaction. */
export async function seedDemo(db: Kysely<DB>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const tenant of DEMO_TENANTS) {
      const schema = tenantDataSchema(tenant.id);
      for (const statement of demoDataStatements(schema, tenant.orders, tenant.salt)) {
        await sql.raw(statement).execute(trx);
      }
      await seedTenantMetadata(trx, tenant.id, tenant.name, schema);
    }
  });
}

async function seedTenantMetadata(
  trx: Transaction<DB>,
  tenantId: string,
  name: string,
  schema: string,
) {
  await replaceTenant(trx, { id: tenantId, name, dataSchema: schema, allowedTables: DEMO_TABLES });
  for (const r of DEMO_REPORTS) await writeReportRows(trx, tenantId, demoReportRows(r));
  for (const c of DEMO_CONTEXTS) await insertContext(trx, tenantId, c);
  for (const role of DEMO_ROLES) await insertRole(trx, tenantId, role);
}

/** A demo report as the rows that store it (written like any report, see writeReportRows). */
function demoReportRows(r: DemoReport): ReportRows {
  return {
    report: {
      id: r.id,
      name: r.name,
      description: r.description,
      sql_template: r.sql,
      category: r.category,
      chart: DEMO_CHARTS[r.id] ? JSON.stringify(DEMO_CHARTS[r.id]) : null,
    },
    filters: r.filters.map((f) => ({
      name: f.name,
      type: f.type,
      description: f.description,
      required: f.required ?? false,
      enum_values: f.enum_values ?? null,
      default_value: f.default_value === undefined ? null : JSON.stringify(f.default_value),
    })),
    fields: r.fields.map(([name, type, description]) => ({ name, type, description })),
  };
}
