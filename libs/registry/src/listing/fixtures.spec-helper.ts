import type { BuiltinTool } from './served-tool';
import { accessRecords, storedReport, tenantCatalog } from '../catalog/fixtures.spec-helper';
import type { TenantCatalog } from '../catalog/model/tenant-catalog';

/**
 * acme with revenue and margin (sales) and payroll (finance): analysts are granted sales, the
 * margins context holds margin alone, eve is denied revenue, admin is an admin role and
 * tool_author a role without grants.
 */
export function salesCatalog(): TenantCatalog {
  return tenantCatalog(
    [
      storedReport('revenue', 'sales'),
      storedReport('margin', 'sales'),
      storedReport('payroll', 'finance'),
    ],
    accessRecords({
      roles: [
        { name: 'admin', isAdmin: true },
        { name: 'analyst', isAdmin: false },
        { name: 'tool_author', isAdmin: false },
      ],
      roleGrants: [{ role: 'analyst', category: 'sales', reportId: null }],
      userGrants: [{ userId: 'eve', effect: 'deny', category: null, reportId: 'revenue' }],
      contexts: [{ name: 'margins', description: '', category: null, reportId: 'margin' }],
    }),
  );
}

/** A built-in tool (meta_tool's shape) that must never be called, with `requiredRole`. */
export function builtinTool(requiredRole?: string): BuiltinTool {
  return {
    definition: {
      name: 'meta_tool',
      description: 'm',
      inputSchema: { type: 'object' },
      readOnly: true,
    },
    category: 'tools',
    requiredRole,
    call: () => Promise.reject(new Error('not called')),
  };
}
