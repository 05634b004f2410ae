import { createHash } from 'node:crypto';
import type { GeneratedToolRecord } from './model/catalog-records';
import { accessRecords, storedReport, TENANT } from './fixtures.spec-helper';
import type { CatalogSnapshot } from './cache/l2-values';

/** A generated tool record whose sha256 matches its source (so it is admitted). */
export function generatedRecord(
  name: string,
  source = `export default () => '${name}'`,
): GeneratedToolRecord {
  return {
    name,
    description: `tool ${name}`,
    inputSchema: { type: 'object', properties: {} },
    source,
    sha256: createHash('sha256').update(source).digest('hex'),
    smokeTested: true,
    approvedBy: 'rex',
    status: 'active',
  };
}

/** A sound snapshot of the fixture tenant (acme at its version), with one of everything. */
export function snapshotOf(tenant = TENANT): CatalogSnapshot {
  return {
    tenant: { ...tenant },
    reports: [
      storedReport('revenue', 'sales'),
      { ...storedReport('payroll', 'finance', 2, 'disabled') },
    ].map((r) => ({ ...r, metadata: { ...r.metadata, tenantId: tenant.id } })),
    access: accessRecords({
      roles: [{ name: 'analyst', isAdmin: false }],
      userRoles: [{ userId: 'bob', role: 'analyst' }],
      userGrants: [{ userId: 'eve', category: null, reportId: 'revenue', effect: 'deny' }],
      roleGrants: [{ role: 'analyst', category: 'sales', reportId: null }],
      contexts: [{ name: 'margins', description: 'm', category: 'sales', reportId: null }],
    }),
    generated: [generatedRecord('g_one')],
  };
}
