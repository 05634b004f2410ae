import type { DB } from '@app/db';
import type { QueryCreator } from 'kysely';
import type { AccessRecords, GeneratedToolRecord } from '../model/catalog-records';

/*
 * CatalogRepository's reads of the tables beside the reports, run on its connection or its
 * snapshot transaction (`g`): access (roles, grants, contexts) and generated tools.
 */

/** A tenant's roles, grants, user roles and grants, and business contexts. */
export async function readAccess(g: QueryCreator<DB>, tenantId: string): Promise<AccessRecords> {
  const [roles, roleGrants, contexts, userRoles, userGrants] = await Promise.all([
    g.selectFrom('roles').select(['name', 'is_admin']).where('tenant_id', '=', tenantId).execute(),
    g
      .selectFrom('role_grants')
      .select(['role', 'category', 'report_id'])
      .where('tenant_id', '=', tenantId)
      .execute(),
    g
      .selectFrom('business_contexts as c')
      .leftJoin('context_members as m', (join) =>
        join.onRef('m.tenant_id', '=', 'c.tenant_id').onRef('m.context', '=', 'c.name'),
      )
      .select(['c.name', 'c.description', 'm.category', 'm.report_id'])
      .where('c.tenant_id', '=', tenantId)
      .execute(),
    g
      .selectFrom('user_roles')
      .select(['user_id', 'role'])
      .where('tenant_id', '=', tenantId)
      .execute(),
    g
      .selectFrom('user_grants')
      .select(['user_id', 'category', 'report_id', 'effect'])
      .where('tenant_id', '=', tenantId)
      .execute(),
  ]);
  return toAccessRecords({ roles, roleGrants, contexts, userRoles, userGrants });
}

/** The rows readAccess reads, as the catalog's access records. */
function toAccessRecords(rows: {
  roles: Array<{ name: string; is_admin: boolean }>;
  roleGrants: Array<{ role: string; category: string | null; report_id: string | null }>;
  contexts: Array<{
    name: string;
    description: string;
    category: string | null;
    report_id: string | null;
  }>;
  userRoles: Array<{ user_id: string; role: string }>;
  userGrants: Array<{
    user_id: string;
    category: string | null;
    report_id: string | null;
    effect: AccessRecords['userGrants'][number]['effect'];
  }>;
}): AccessRecords {
  return {
    roles: rows.roles.map((r) => ({ name: r.name, isAdmin: r.is_admin })),
    userRoles: rows.userRoles.map((r) => ({ userId: r.user_id, role: r.role })),
    userGrants: rows.userGrants.map((g) => ({
      userId: g.user_id,
      category: g.category,
      reportId: g.report_id,
      effect: g.effect,
    })),
    roleGrants: rows.roleGrants.map((g) => ({
      role: g.role,
      category: g.category,
      reportId: g.report_id,
    })),
    contexts: rows.contexts.map((c) => ({
      name: c.name,
      description: c.description,
      category: c.category,
      reportId: c.report_id,
    })),
  };
}

/** A tenant's installed generated tools (meta_tool), by name. */
export async function readGenerated(
  g: QueryCreator<DB>,
  tenantId: string,
): Promise<GeneratedToolRecord[]> {
  const rows = await g
    .selectFrom('generated_tools')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('name')
    .execute();
  return rows.map((r) => ({
    name: r.name,
    description: r.description,
    inputSchema: r.input_schema,
    source: r.source,
    sha256: r.sha256,
    smokeTested: r.smoke_tested,
    approvedBy: r.approved_by,
    status: r.status,
  }));
}
