import { ReportTool } from '@app/templates';
import { AccessPolicy } from '../access/access-policy';
import type { AccessRecords, StoredReport, TenantRecord } from './model/catalog-records';
import { ReportSet } from './model/report-set';
import type { AdmitReport } from './model/report-set';
import { TenantCatalog } from './model/tenant-catalog';

/** Test fixtures for pure specs: reports, access records and catalogs built in memory. */
export const TENANT: TenantRecord = {
  id: 'acme',
  name: 'Acme',
  createdAt: '2026-11-30T00:00:00Z',
  catalogVersion: 7,
  dataSchema: 'tenant_acme',
  allowedTables: ['orders'],
};

export function storedReport(
  id: string,
  category: string,
  version = 1,
  status: StoredReport['status'] = 'active',
  sqlTemplate = 'SELECT count(*) AS n FROM orders',
): StoredReport {
  return {
    status,
    updatedAt: '2026-11-30T00:00:00Z',
    metadata: {
      tenantId: 'acme',
      id,
      name: id,
      description: `report ${id}`,
      sqlTemplate,
      category,
      version,
      filters: [],
      fields: [{ name: 'n', type: 'integer', description: 'count' }],
    },
  };
}

/** Serves every active report (the guard is another unit's concern). */
export const admitAll: AdmitReport = (s) => ({
  id: s.metadata.id,
  version: s.metadata.version,
  status: { served: true },
  tool: new ReportTool(s.metadata),
});

export function accessRecords(partial: Partial<AccessRecords> = {}): AccessRecords {
  return { roles: [], userRoles: [], userGrants: [], roleGrants: [], contexts: [], ...partial };
}

export function tenantCatalog(reports: StoredReport[], access: AccessRecords): TenantCatalog {
  return new TenantCatalog(
    TENANT,
    ReportSet.of(reports, 'scope', admitAll),
    new AccessPolicy(access),
  );
}
