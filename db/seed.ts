import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from './database';
import { DEMO_CONTEXTS, DEMO_REPORTS, DEMO_ROLES, DEMO_TABLES, DEMO_TENANTS } from './demo-catalog';
import type { DemoReport } from './demo-catalog';
import { demoDataStatements } from './demo-data';
import { writeReportRows } from './report-rows.repository';
import type { ReportRows } from './report-rows.repository';

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
  const g = trx.withSchema('gateway');
  await g.deleteFrom('tenants').where('id', '=', tenantId).execute();
  await g.insertInto('tenants').values({ id: tenantId, name }).execute();
  await g
    .insertInto('datasources')
    .values({ tenant_id: tenantId, data_schema: schema, allowed_tables: DEMO_TABLES })
    .execute();
  for (const r of DEMO_REPORTS) await writeReportRows(trx, tenantId, demoReportRows(r));
  for (const c of DEMO_CONTEXTS) {
    await g
      .insertInto('business_contexts')
      .values({ tenant_id: tenantId, name: c.name, description: c.description })
      .execute();
    await g
      .insertInto('context_members')
      .values(
        c.categories.map((category) => ({
          tenant_id: tenantId,
          context: c.name,
          category,
          report_id: null,
        })),
      )
      .execute();
  }
  for (const role of DEMO_ROLES) {
    await g
      .insertInto('roles')
      .values({
        tenant_id: tenantId,
        name: role.name,
        description: role.description,
        is_admin: role.is_admin ?? false,
      })
      .execute();
    const grants = [
      ...(role.categories ?? []).map((category) => ({
        tenant_id: tenantId,
        role: role.name,
        category,
        report_id: null,
      })),
      ...(role.reports ?? []).map((report_id) => ({
        tenant_id: tenantId,
        role: role.name,
        category: null,
        report_id,
      })),
    ];
    if (grants.length > 0) await g.insertInto('role_grants').values(grants).execute();
  }
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
