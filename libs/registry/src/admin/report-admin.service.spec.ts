import { initSqlParser } from '@app/templates';
import type { ReportMetadata } from '@app/templates';
import type { Principal } from '../access/principal';
import type { CatalogStore } from '../catalog/catalog-store';
import type { CatalogRepository } from '../catalog/load/catalog.repository';
import type { StoredReport } from '../catalog/model/catalog-records';
import { accessRecords, tenantCatalog } from '../catalog/fixtures.spec-helper';
import { ReportAdminService } from './report-admin.service';
import type { ReportRepository } from './report.repository';

const root: Principal = { tenantId: 'acme', userId: 'root', roles: ['admin'], claims: {} };
const alice: Principal = { tenantId: 'acme', userId: 'alice', roles: ['analyst'], claims: {} };

const DOCUMENT = {
  name: 'Order count',
  description: 'How many orders there are.',
  sql_template: 'SELECT count(*) AS n FROM orders',
  category: 'sales',
  status: 'active',
  filters: [],
  fields: [{ name: 'n', type: 'integer', description: 'orders' }],
};

/** Report rows in memory, written by the fake repository and read by the fake catalog reads. */
function setup() {
  const rows = new Map<string, StoredReport>();
  const invalidated: string[] = [];
  const reports = {
    upsert: (_tenant: string, metadata: ReportMetadata, status: 'active' | 'disabled') => {
      const created = !rows.has(metadata.id);
      rows.set(metadata.id, { metadata, status, updatedAt: '2026-12-02T00:00:00Z' });
      return Promise.resolve(created);
    },
    delete: (_tenant: string, id: string) => Promise.resolve(rows.delete(id)),
    setStatus: () => Promise.resolve(false),
  } as unknown as ReportRepository;
  const catalogRows = {
    loadReports: (_tenant: string, selection?: { ids: string[] }) =>
      Promise.resolve(
        [...rows.values()].filter((r) => !selection || selection.ids.includes(r.metadata.id)),
      ),
  } as unknown as CatalogRepository;
  const catalog = tenantCatalog(
    [],
    accessRecords({
      roles: [
        { name: 'admin', isAdmin: true },
        { name: 'analyst', isAdmin: false },
      ],
    }),
  );
  const store = {
    catalog: () => Promise.resolve(catalog),
    invalidate: (tenant: string) => invalidated.push(tenant),
  } as unknown as CatalogStore;
  return { service: new ReportAdminService(reports, catalogRows, store), rows, invalidated };
}

describe('ReportAdminService', () => {
  // loading the parser (WebAssembly) can take seconds on a loaded machine
  beforeAll(() => initSqlParser(), 30_000);

  it('saves a valid report, tells the catalog, and says it is not loaded yet', async () => {
    const { service, rows, invalidated } = setup();
    const saved = await service.put(root, 'order_count', DOCUMENT);
    expect(saved.created).toBe(true);
    expect(rows.has('order_count')).toBe(true);
    expect(invalidated).toEqual(['acme']);
    expect(saved.status).toMatchObject({
      served: false,
      reason: 'not loaded yet; read it again in a moment',
    });
    expect(saved.report.sql_template).toBe(DOCUMENT.sql_template);
  });

  it('refuses a non-admin before reading or writing anything', async () => {
    const { service, rows, invalidated } = setup();
    await expect(service.put(alice, 'order_count', DOCUMENT)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(rows.size).toBe(0);
    expect(invalidated).toEqual([]);
  });

  it('refuses a template the guard rejects, whole and with its reasons, writing nothing', async () => {
    const { service, rows, invalidated } = setup();
    const bad = { ...DOCUMENT, sql_template: 'SELECT count(*) AS n FROM pg_roles' };
    const refused = service.put(root, 'order_count', bad);
    await expect(refused).rejects.toMatchObject({ code: 'INVALID_REPORT' });
    await expect(refused).rejects.toHaveProperty('details.problems');
    expect(rows.size).toBe(0);
    expect(invalidated).toEqual([]);
  });

  it('refuses an unreadable document with INVALID_REPORT', async () => {
    const { service, rows } = setup();
    await expect(service.put(root, 'order_count', { name: 42 })).rejects.toMatchObject({
      code: 'INVALID_REPORT',
    });
    expect(rows.size).toBe(0);
  });

  it('answers REPORT_NOT_FOUND for a report that is not there, and tells the catalog nothing', async () => {
    const { service, invalidated } = setup();
    await expect(service.delete(root, 'nothing')).rejects.toMatchObject({
      code: 'REPORT_NOT_FOUND',
    });
    await expect(service.get(root, 'nothing')).rejects.toMatchObject({ code: 'REPORT_NOT_FOUND' });
    await expect(service.setStatus(root, 'nothing', 'disabled')).rejects.toMatchObject({
      code: 'REPORT_NOT_FOUND',
    });
    expect(invalidated).toEqual([]);
  });

  it('deletes a report and tells the catalog', async () => {
    const { service, rows, invalidated } = setup();
    await service.put(root, 'order_count', DOCUMENT);
    await service.delete(root, 'order_count');
    expect(rows.size).toBe(0);
    expect(invalidated).toEqual(['acme', 'acme']);
  });
});
