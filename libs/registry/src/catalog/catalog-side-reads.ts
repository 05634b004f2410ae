import type { DB } from '@app/db';
import type { QueryCreator } from 'kysely';
import type { AccessRecords, GeneratedToolRecord } from './catalog-records';

/** A tenant's roles, grants, user roles and grants, and business contexts. */
export async function readAccess(g: QueryCreator<DB>, tenantId: string): Promise<AccessRecords> {
  const [roles, grants, contexts, userRoles, userGrants] = await Promise.all([
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
  return {
    roles: roles.map((r) => ({ name: r.name, isAdmin: r.is_admin })),
    userRoles: userRoles.map((r) => ({ userId: r.user_id, role: r.role })),
    userGrants: userGrants.map((g) => ({
      userId: g.user_id,
      category: g.category,
      reportId: g.report_id,
      effect: g.effect,
    })),
    roleGrants: grants.map((g) => ({
      role: g.role,
      category: g.category,
      reportId: g.report_id,
    })),
    contexts: contexts.map((c) => ({
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
