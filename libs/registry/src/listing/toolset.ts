import type { Principal } from '../access/principal';
import { permissionSetKey } from '../access/permission-key';
import type { TenantCatalog } from '../catalog/model/tenant-catalog';
import { RegistryError } from '../errors';
import { accessSubject } from './served-tool';
import type { ServedTool } from './served-tool';

/** Whether this caller may use this tool (in this context), by the same rules as the list. */
export function permits(
  catalog: TenantCatalog,
  principal: Principal,
  roles: string[],
  tool: ServedTool,
  context: string | undefined,
): boolean {
  const { access } = catalog;
  if (!access.decide(principal, roles, accessSubject(tool)).allowed) return false;
  // built-ins (meta_tool for its authors) are listed whatever business context is asked for
  if (
    tool.kind !== 'builtin' &&
    context !== undefined &&
    !access.inContext(context, accessSubject(tool))
  )
    return false;
  return tool.kind !== 'report' || tool.report.isBindableFor(principal);
}

/** The toolset key, from memory alone: tenant, catalog version, permission set, context. */
export function toolsetKey(
  catalog: TenantCatalog,
  principal: Principal,
  context: string | undefined,
): { key: string; roles: string[] } {
  const { access } = catalog;
  if (context !== undefined && !access.hasContext(context)) {
    const valid = access.contextNames();
    throw new RegistryError(
      'UNKNOWN_CONTEXT',
      `unknown business context "${context}"; valid contexts: ${valid.join(', ') || 'none'}`,
      { valid_contexts: valid },
    );
  }
  const roles = access.effectiveRoles(principal);
  const user = access.hasUserRules(principal.userId) ? principal.userId : undefined;
  const permissions = permissionSetKey(roles, Object.keys(principal.claims), user);
  return {
    key: [principal.tenantId, catalog.version, permissions, context ?? '*'].join(':'),
    roles,
  };
}
