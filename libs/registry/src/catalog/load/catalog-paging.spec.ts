import { CatalogPaging } from './catalog-paging';
import type { PagedReads, SnapshotReads } from './catalog-paging';
import type { ReportSelection, StoredReport } from '../model/catalog-records';
import { accessRecords, admitAll, storedReport, TENANT } from '../fixtures.spec-helper';
import { ReportSet } from '../model/report-set';

const id = (i: number) => `r${String(i).padStart(3, '0')}`;

/** A tenant of `size` reports held in memory, read the way the repository reads it. */
class FakeReads implements PagedReads {
  readonly selections: ReportSelection[] = [];
  snapshots = 0;
  fail?: Error;
  readonly reports: StoredReport[];

  constructor(size: number) {
    this.reports = Array.from({ length: size }, (_, i) =>
      storedReport(id(i + 1), i < 5 ? 'vis5' : 'bulk'),
    );
  }

  countReports(_tenantId: string, limit: number): Promise<number> {
    return Promise.resolve(Math.min(limit, this.reports.length));
  }

  async loadReports(_tenantId: string, selection?: ReportSelection): Promise<StoredReport[]> {
    this.selections.push(selection);
    if (this.fail) throw this.fail;
    if (selection && 'reach' in selection) {
      const { categories, ids } = selection.reach;
      return this.reports.filter(
        (r) => categories.includes(r.metadata.category) || ids.includes(r.metadata.id),
      );
    }
    if (selection && 'after' in selection) {
      const after = selection.after;
      return this.reports
        .filter((r) => after === null || r.metadata.id > after)
        .slice(0, selection.limit);
    }
    return this.reports;
  }

  inSnapshot<T>(fn: (reads: SnapshotReads) => Promise<T>): Promise<T> {
    this.snapshots++;
    return fn({
      findTenant: () => Promise.resolve(TENANT),
      loadAccess: () => Promise.resolve(accessRecords()),
      loadGenerated: () => Promise.resolve([]),
      loadReports: (tenantId, selection) => this.loadReports(tenantId, selection),
    });
  }
}

describe('CatalogPaging', () => {
  it('wants a partial first load only above the threshold, and never where it cannot page', async () => {
    const options = { partialAbove: 10, pageSize: 4 };
    expect(await new CatalogPaging(new FakeReads(11), options).wanted('acme')).toBe(true);
    expect(await new CatalogPaging(new FakeReads(10), options).wanted('acme')).toBe(false);
    const pglite = Object.assign(new FakeReads(11), { pagedLoads: false });
    expect(await new CatalogPaging(pglite, options).wanted('acme')).toBe(false);
  });

  it('reads the whole tenant in pages of one snapshot, in id order, yielding between pages', async () => {
    const reads = new FakeReads(10);
    const paging = new CatalogPaging(reads, { partialAbove: 5, pageSize: 4 });
    let turns = 0;
    let reading = true;
    const ticker = (async () => {
      while (reading) {
        await new Promise((resolve) => setImmediate(resolve));
        turns++;
      }
    })();
    const all = await paging.readAll('acme');
    reading = false;
    await ticker;
    expect(reads.snapshots).toBe(1);
    expect(reads.selections).toEqual([
      { after: null, limit: 4 },
      { after: id(4), limit: 4 },
      { after: id(8), limit: 4 },
    ]);
    expect([...all.parts.stored.keys()]).toEqual(reads.reports.map((r) => r.metadata.id));
    expect(all.parts.byCategory.get('vis5')).toHaveLength(5);
    expect(turns).toBeGreaterThanOrEqual(2);
  });

  it('covers a reach once for concurrent callers, and a failed read covers nothing', async () => {
    const reads = new FakeReads(20);
    const paging = new CatalogPaging(reads);
    const set = ReportSet.partial('scope', admitAll);
    const reach = { categories: ['vis5'], ids: [id(12), 'missing'] };
    await Promise.all([paging.cover('acme', set, reach), paging.cover('acme', set, reach)]);
    expect(reads.selections).toHaveLength(1);
    expect(set.size).toBe(6);
    await paging.cover('acme', set, reach);
    expect(reads.selections).toHaveLength(1);

    const broken = new FakeReads(20);
    broken.fail = new Error('connection refused');
    const other = ReportSet.partial('scope', admitAll);
    const failing = new CatalogPaging(broken);
    await expect(failing.cover('acme', other, reach)).rejects.toThrow('connection refused');
    expect(other.size).toBe(0);
    expect(other.missing(reach)).toEqual({ categories: ['vis5'], ids: [id(12), 'missing'] });
  });
});
