import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from './database';
import { DEMO_CONTEXTS, DEMO_REPORTS, DEMO_ROLES, DEMO_TABLES, DEMO_TENANTS } from './demo-catalog';
import { demoDataStatements } from './demo-data';

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
  for (const r of DEMO_REPORTS) {
    await g
      .insertInto('reports')
      .values({
        tenant_id: tenantId,
        id: r.id,
        name: r.name,
        description: r.description,
        sql_template: r.sql,
        category: r.category,
      })
      .execute();
    if (r.filters.length > 0) {
      await g
        .insertInto('report_filters')
        .values(
          r.filters.map((f, position) => ({
            tenant_id: tenantId,
            report_id: r.id,
            name: f.name,
            type: f.type,
            description: f.description,
            required: f.required ?? false,
            enum_values: f.enum_values ?? null,
            default_value: f.default_value === undefined ? null : JSON.stringify(f.default_value),
            position,
          })),
        )
        .execute();
    }
    await g
      .insertInto('report_fields')
      .values(
        r.fields.map(([field, type, description], position) => ({
          tenant_id: tenantId,
          report_id: r.id,
          name: field,
          type,
          description,
          position,
        })),
      )
      .execute();
  }
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
