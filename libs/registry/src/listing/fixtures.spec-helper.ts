import { accessRecords, storedReport, tenantCatalog } from '../catalog/fixtures.spec-helper';
import type { TenantCatalog } from '../catalog/tenant-catalog';

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
