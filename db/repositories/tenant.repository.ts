import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../database';

/** A business context: a name, what it is about, the report categories it covers. */
export interface ContextRows {
  name: string;
  description: string;
  categories: string[];
}

/** A role with what it grants: whole categories and single reports. */
export interface RoleRows {
  name: string;
  description: string;
  is_admin?: boolean;
  categories?: string[];
  reports?: string[];
}

/** How many tenants the metadata database holds. */
export async function countTenants(db: Kysely<DB>): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM gateway.tenants`.execute(
    db,
  );
  return rows[0].n;
}

/**
 * Creates the tenant afresh with its datasource (deleting it first drops every row it owns),
 * through `db` (run it inside a transaction with the rest of the tenant's rows).
 */
export async function replaceTenant(
  db: Kysely<DB>,
  tenant: { id: string; name: string; dataSchema: string; allowedTables: string[] },
): Promise<void> {
  const g = db.withSchema('gateway');
  await g.deleteFrom('tenants').where('id', '=', tenant.id).execute();
  await g.insertInto('tenants').values({ id: tenant.id, name: tenant.name }).execute();
  await g
    .insertInto('datasources')
    .values({
      tenant_id: tenant.id,
      data_schema: tenant.dataSchema,
      allowed_tables: tenant.allowedTables,
    })
    .execute();
}

/** A new business context of the tenant with its member categories. */
export async function insertContext(
  db: Kysely<DB>,
  tenantId: string,
  c: ContextRows,
): Promise<void> {
  const g = db.withSchema('gateway');
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

/** A new role of the tenant with its grants (categories, then single reports). */
export async function insertRole(db: Kysely<DB>, tenantId: string, role: RoleRows): Promise<void> {
  const g = db.withSchema('gateway');
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
