import { initSqlParser } from '@app/templates';
import { Metrics } from '../../metrics';
import { CatalogLoader } from './catalog-loader';
import type { CatalogReads } from './catalog-loader';
import { FakeCatalogReads, FakePagedReads } from '../fake-catalog-reads.spec-helper';
import { FakeRedis } from '../fake-redis.spec-helper';
import { storedReport } from '../fixtures.spec-helper';
import { ReportAdmission } from '../judge/report-admission';
import { SharedCache } from '../cache/shared-cache';
import { generatedRecord } from '../snapshot.spec-helper';
import type { TenantCatalog } from '../model/tenant-catalog';

const SETTINGS = {
  statementTimeoutMs: 1000,
  maxResultBytes: 1024,
  cacheTtlSeconds: 60,
  staleAfterMs: 0,
};

/** One gateway instance's loader over `reads`, with L2 in `redis` (shared between instances). */
function instance(
  reads: CatalogReads,
  redis: FakeRedis | null = new FakeRedis(),
  paging?: { partialAbove: number; pageSize: number },
) {
  const metrics = new Metrics();
  const admission = new ReportAdmission(metrics);
  const shared = new SharedCache(metrics, redis?.asRedis() ?? null);
  const loader = new CatalogLoader(reads, shared, admission, metrics, SETTINGS, paging ?? null);
  const builds = (source: string) => metrics.value('gateway_catalog_builds_total', { source });
  return { loader, admission, builds, redis };
}

async function loadNow(loader: CatalogLoader, tenantId: string, previous?: TenantCatalog) {
  const stamp = await loader.stamp(tenantId);
  if (!stamp) throw new Error(`no stamp for ${tenantId}`);
  return loader.load(tenantId, stamp, previous);
}

const ids = (catalog: TenantCatalog) =>
  [...catalog.reports.storedReports()].map((r) => r.metadata.id).sort();
const admissions: ReportAdmission[] = [];

describe('CatalogLoader', () => {
  beforeAll(() => initSqlParser(), 30_000);
  afterEach(async () => {
    await Promise.all(admissions.splice(0).map((a) => a.idle()));
  });

  function setup(
    reads: CatalogReads,
    redis?: FakeRedis | null,
    paging?: { partialAbove: number; pageSize: number },
  ) {
    const made = instance(reads, redis, paging);
    admissions.push(made.admission);
    return made;
  }

  it("builds a tenant's first catalog from Postgres and stores it in L2 for the other instances", async () => {
    const reads = new FakeCatalogReads();
    const tenant = reads.addTenant('acme', [
      storedReport('a', 'sales'),
      storedReport('b', 'sales'),
    ]);
    reads.setGenerated('acme', [generatedRecord('g_one')]);
    const { loader, builds, redis } = setup(reads);
    const stored = redis!.nextSet();
    const catalog = await loadNow(loader, 'acme');
    expect(catalog.tenant).toEqual(tenant);
    expect(ids(catalog)).toEqual(['a', 'b']);
    expect([...catalog.generated.keys()]).toEqual(['g_one']);
    expect(catalog.reportStatus('a')).toEqual({ served: true });
    expect(builds('postgres')).toBe(1);
    await stored;
    expect(redis?.values.size).toBe(1);
  });

  it('builds the catalog on another instance from L2, reading no report from Postgres', async () => {
    const reads = new FakeCatalogReads();
    reads.addTenant('acme', [storedReport('a', 'sales')]);
    const redis = new FakeRedis();
    const stored = redis.nextSet();
    const first = await loadNow(setup(reads, redis).loader, 'acme');
    await stored;
    reads.calls.length = 0;
    const other = setup(reads, redis);
    const second = await loadNow(other.loader, 'acme');
    expect(other.builds('redis')).toBe(1);
    expect(reads.calls.filter((c) => c.startsWith('loadReports'))).toEqual([]);
    expect(ids(second)).toEqual(ids(first));
    expect(second.version).toBe(first.version);
  });

  it('drops a corrupt L2 snapshot and builds from Postgres instead of serving it', async () => {
    const reads = new FakeCatalogReads();
    reads.addTenant('acme', [storedReport('a', 'sales')]);
    const redis = new FakeRedis();
    const stored = redis.nextSet();
    await loadNow(setup(reads, redis).loader, 'acme');
    await stored;
    const [key, value] = [...redis.values.entries()][0]!;
    redis.values.set(key, value.replace('"a"', '"z"'));
    const other = setup(reads, redis);
    const catalog = await loadNow(other.loader, 'acme');
    expect(other.builds('redis')).toBe(0);
    expect(other.builds('postgres')).toBe(1);
    expect(ids(catalog)).toEqual(['a']);
  });

  it("never builds one tenant's catalog from another's data", async () => {
    const reads = new FakeCatalogReads();
    reads.addTenant('acme', [storedReport('a', 'sales')]);
    reads.addTenant('globex', [storedReport('g', 'ops')]);
    const redis = new FakeRedis();
    const { loader } = setup(reads, redis);
    const acme = await loadNow(loader, 'acme');
    const stored = redis.nextSet();
    const globex = await loadNow(loader, 'globex');
    await stored;
    // and on a second instance, from L2
    const other = setup(reads, redis).loader;
    const fromL2 = await loadNow(other, 'globex');
    for (const catalog of [globex, fromL2]) {
      expect(catalog.tenant.id).toBe('globex');
      expect(ids(catalog)).toEqual(['g']);
      expect(
        [...catalog.reports.storedReports()].every((r) => r.metadata.tenantId === 'globex'),
      ).toBe(true);
    }
    expect(ids(acme)).toEqual(['a']);
  });

  it('refreshes a catalog it built before with only what changed, reusing the rest', async () => {
    const reads = new FakeCatalogReads();
    reads.addTenant('acme', [
      storedReport('a', 'sales'),
      storedReport('b', 'sales'),
      storedReport('c', 'sales'),
    ]);
    const { loader, builds } = setup(reads);
    const first = await loadNow(loader, 'acme');
    reads.put('acme', storedReport('b', 'sales', 2));
    reads.remove('acme', 'c');
    reads.put('acme', storedReport('d', 'ops'));
    reads.calls.length = 0;
    const second = await loadNow(loader, 'acme', first);
    expect(builds('refresh')).toBe(1);
    expect(reads.calls.filter((c) => c.startsWith('loadReports'))).toEqual([]);
    expect(ids(second)).toEqual(['a', 'b', 'd']);
    expect(second.reportVersion('b')).toBe(2);
    expect(second.version).toBe(first.version + 3);
    expect(second.reports.storedReport('a')).toBe(first.reports.storedReport('a'));
    const changed = ['b', 'd'].map((id) => second.reports.storedReport(id)?.updatedAt);
    expect([...loader.appliedChanges(second)].sort()).toEqual(changed.sort());
    expect(loader.appliedChanges(first)).toEqual([]);
    // the catalog refreshed from is left as it was
    expect(ids(first)).toEqual(['a', 'b', 'c']);
  });

  it('reads a re-created tenant (same id, new incarnation) in full, reusing nothing', async () => {
    const reads = new FakeCatalogReads();
    reads.addTenant('acme', [storedReport('old', 'sales')]);
    const { loader, builds } = setup(reads);
    const first = await loadNow(loader, 'acme');
    reads.dropTenant('acme');
    reads.addTenant('acme', [storedReport('new', 'sales')]);
    const second = await loadNow(loader, 'acme', first);
    expect(builds('refresh')).toBe(0);
    expect(builds('postgres')).toBe(2);
    expect(ids(second)).toEqual(['new']);
  });

  it.each(['loadReports', 'loadAccess', 'loadGenerated', 'findTenant'])(
    'rejects with the error when %s fails, storing nothing in L2',
    async (failing) => {
      const reads = new FakeCatalogReads();
      reads.addTenant('acme', [storedReport('a', 'sales')]);
      const { loader, redis } = setup(reads);
      const stamp = await loader.stamp('acme');
      reads.failing = failing;
      await expect(loader.load('acme', stamp!)).rejects.toThrow(`${failing} failed`);
      expect(redis?.values.size).toBe(0);
    },
  );

  it('rejects a refresh whose reads fail, leaving the previous catalog whole', async () => {
    const reads = new FakeCatalogReads();
    reads.addTenant('acme', [storedReport('a', 'sales'), storedReport('b', 'sales')]);
    const { loader } = setup(reads);
    const first = await loadNow(loader, 'acme');
    reads.remove('acme', 'b');
    reads.failing = 'changesSince';
    await expect(loadNow(loader, 'acme', first)).rejects.toThrow('changesSince failed');
    expect(ids(first)).toEqual(['a', 'b']);
    expect(first.reportStatus('b')).toEqual({ served: true });
    reads.failing = undefined;
    expect(ids(await loadNow(loader, 'acme', first))).toEqual(['a']);
  });

  it('refuses a tenant that does not exist with TENANT_NOT_FOUND', async () => {
    const reads = new FakeCatalogReads();
    const created = reads.addTenant('acme', [storedReport('a', 'sales')]);
    const { loader } = setup(reads);
    await expect(loader.stamp('ghost')).resolves.toBeUndefined();
    const stamp = { version: created.catalogVersion, createdAt: created.createdAt };
    await expect(loader.load('ghost', stamp)).rejects.toMatchObject({ code: 'TENANT_NOT_FOUND' });
    const first = await loadNow(loader, 'acme');
    reads.dropTenant('acme');
    await expect(loader.load('acme', stamp, first)).rejects.toMatchObject({
      code: 'TENANT_NOT_FOUND',
    });
  });

  it('loads a big tenant partially, then reads only the reach a caller needs', async () => {
    const reads = new FakePagedReads();
    const reports = ['a1', 'a2', 'b1', 'b2', 'c1'].map((id) => storedReport(id, id[0]!));
    reads.addTenant('big', reports);
    const { loader, builds } = setup(reads, null, {
      partialAbove: reports.length - 1,
      pageSize: 2,
    });
    const catalog = await loadNow(loader, 'big');
    expect(builds('partial')).toBe(1);
    expect(catalog.reports.complete).toBe(false);
    expect(catalog.reports.size).toBe(0);
    expect(reads.calls.filter((c) => c.startsWith('loadReports'))).toEqual([]);
    await loader.cover(catalog, { categories: ['a'], ids: ['c1'] });
    expect(ids(catalog)).toEqual(['a1', 'a2', 'c1']);
    expect(reads.calls.filter((c) => c.startsWith('loadReports'))).toEqual([
      'loadReports(reach):big',
    ]);
  });

  it('reads the complete catalog of a big tenant in pages', async () => {
    const reads = new FakePagedReads();
    const reports = ['a1', 'a2', 'b1', 'b2', 'c1'].map((id) => storedReport(id, id[0]!));
    reads.addTenant('big', reports);
    const pageSize = 2;
    const { loader, builds } = setup(reads, null, { partialAbove: 1, pageSize });
    const complete = await loader.loadComplete('big');
    expect(builds('paged')).toBe(1);
    expect(complete.reports.complete).toBe(true);
    expect(ids(complete)).toEqual(reports.map((r) => r.metadata.id).sort());
    const pages = reads.calls.filter((c) => c === 'loadReports(page):big').length;
    expect(pages).toBe(Math.floor(reports.length / pageSize) + 1);
  });

  it('loads a small tenant in full even with paged reads, and refuses paged loads without them', async () => {
    const paged = new FakePagedReads();
    paged.addTenant('small', [storedReport('a', 'sales')]);
    const { loader, builds } = setup(paged, null, { partialAbove: 10, pageSize: 2 });
    expect((await loadNow(loader, 'small')).reports.complete).toBe(true);
    expect(builds('postgres')).toBe(1);
    const plain = setup(new FakeCatalogReads()).loader;
    await expect(plain.loadComplete('small')).rejects.toThrow(
      'paged loads need a repository that pages',
    );
  });
});
