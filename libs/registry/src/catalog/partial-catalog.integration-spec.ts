import { initSqlParser } from '@app/templates';
import { connectPostgres } from '@app/db';
import type { DatabaseHandle } from '@app/db';
import { Logger } from '@nestjs/common';
import { sql } from 'kysely';
import { eventually } from '../../../../test/support/eventually';
import { TcpProxy } from '../../../../test/support/tcp-proxy';
import { createTestDatabase } from '../../../../test/support/test-database';
import type { TestDatabase } from '../../../../test/support/test-database';
import type { Principal } from '../access/principal';
import type { CatalogService } from '../listing/catalog.service';
import { expectedTools, partialInstance, seedBigTenant } from './partial-catalog.spec-helper';

jest.setTimeout(120_000);

const SIZE = 600;
const TENANT = 'big';
const five: Principal = { tenantId: TENANT, userId: 'fay', roles: ['five'], claims: {} };
const other: Principal = { tenantId: TENANT, userId: 'otto', roles: ['other'], claims: {} };
const admin: Principal = { tenantId: TENANT, userId: 'ada', roles: ['admin'], claims: {} };
const acmeAdmin: Principal = { tenantId: 'acme', userId: 'root', roles: ['admin'], claims: {} };

async function reportNames(catalogs: CatalogService, who: Principal): Promise<string[]> {
  const { tools } = await catalogs.visibleSet(who);
  return tools.filter((t) => t.kind === 'report').map((t) => t.definition.name);
}

describe(`a ${SIZE}-report tenant loaded partially, on real Postgres`, () => {
  let db: TestDatabase;
  /** what role other may use, and every report, as Postgres has them now */
  const otherNow = () => expectedTools(db.handle, TENANT, ['c2'], ['r00007']);
  const allNow = () => expectedTools(db.handle, TENANT, ['vis5', 'c2', 'bulk']);

  beforeAll(async () => {
    await initSqlParser();
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    db = await createTestDatabase();
    await seedBigTenant(db.handle, TENANT, SIZE);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await db.drop();
  });

  it('reads only the caller’s reports for its first list, then the rest in the background', async () => {
    const a = partialInstance(db.handle);
    const otherTools = await otherNow();
    a.reads.holdPages();
    const first = await reportNames(a.catalogs, five);
    expect(first).toEqual([1, 2, 3, 4, 5].map((i) => `query_report_r0000${i}`));
    // the first list read its 5 reports; the background load is held at its first page
    expect(a.reads.read('reach')).toBe(5);
    expect(a.reads.read('all')).toBe(0);
    expect(a.reads.read('page')).toBeLessThanOrEqual(50);
    expect(a.builds('partial')).toBe(1);

    // another user of the tenant, other grants: its own reach is read (not served from
    // what the first user's read), and never more than it may use
    expect(await reportNames(a.catalogs, other)).toEqual(otherTools);
    expect(a.reads.read('reach')).toBe(5 + otherTools.length);

    // another tenant is served meanwhile, in full
    expect((await a.catalogs.visibleSet(acmeAdmin)).tools.length).toBeGreaterThan(0);

    a.reads.releasePages();
    await a.store.completion.idle();
    const complete = await a.store.catalog(TENANT);
    expect(complete.reports.complete).toBe(true);
    expect(complete.reports.size).toBe(SIZE);
    expect(a.reads.read('page')).toBe(SIZE);
    expect(a.builds('paged')).toBe(1);

    // once complete, a third user's list and an admin's need no read of their own
    const reachBefore = a.reads.read('reach');
    const third = { ...other, userId: 'olga' };
    expect(await reportNames(a.catalogs, third)).toEqual(otherTools);
    expect(await reportNames(a.catalogs, admin)).toEqual(await allNow());
    expect(a.reads.read('reach')).toBe(reachBefore);
    await a.admission.idle();
  });

  it('an admin list waits for the complete catalog instead of listing a part', async () => {
    const b = partialInstance(db.handle);
    expect(await reportNames(b.catalogs, admin)).toEqual(await allNow());
    expect(b.reads.read('all')).toBe(0);
    expect(b.reads.read('page')).toBe(SIZE);
    await b.admission.idle();
  });

  it('ends in the right catalog when an admin changes reports during the background load', async () => {
    const c = partialInstance(db.handle);
    // memory answers while the LISTEN connection vouches for it: the change notice (not a
    // version read per request) is what tells this instance of the change
    await c.feed.onApplicationBootstrap();
    expect(c.feed.isListening).toBe(true);
    c.reads.holdPages();
    expect(await reportNames(c.catalogs, five)).toHaveLength(5);
    const before = c.store.current(TENANT);
    // midway through the background load: a report added to c2, one removed, one moved out
    const q = db.handle.db;
    await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
      VALUES (${TENANT}, 'r09999', 'New', 'Added midway', 'SELECT count(*) AS n FROM orders', 'c2')`.execute(
      q,
    );
    await sql`DELETE FROM gateway.reports WHERE tenant_id = ${TENANT} AND id = 'r00020'`.execute(q);
    await sql`UPDATE gateway.reports SET category = 'bulk' WHERE tenant_id = ${TENANT} AND id = 'r00030'`.execute(
      q,
    );
    const now = await otherNow();
    await eventually(async () => expect(c.store.current(TENANT)).not.toBe(before));
    expect(now).toContain('query_report_r09999');
    expect(now).not.toContain('query_report_r00020');
    expect(now).not.toContain('query_report_r00030');

    // a list during the load sees the change (the partial catalog is refreshed and covered)
    expect(await reportNames(c.catalogs, other)).toEqual(now);

    // the load finishes in its own (older) snapshot; the catalog served after it is current
    c.reads.releasePages();
    await c.store.completion.idle();
    expect(await reportNames(c.catalogs, other)).toEqual(now);
    const complete = await c.store.catalog(TENANT);
    expect(complete.reports.complete).toBe(true);
    expect(complete.reports.size).toBe(SIZE);
    expect(complete.reports.storedReport('r00030')?.metadata.category).toBe('bulk');
    const { rows } = await sql<{ v: number }>`SELECT catalog_version::int AS v
      FROM gateway.tenants WHERE id = ${TENANT}`.execute(q);
    expect(complete.version).toBe(rows[0]!.v);
    expect(await reportNames(c.catalogs, admin)).toEqual(await allNow());
    await c.admission.idle();
    await c.feed.onApplicationShutdown();
  });

  describe('with Postgres behind a proxy that goes down midway through the background load', () => {
    let proxy: TcpProxy;
    let handle: DatabaseHandle;

    beforeAll(async () => {
      proxy = new TcpProxy('127.0.0.1', 5432);
      await proxy.start();
      const url = new URL(db.url);
      url.host = `127.0.0.1:${proxy.port}`;
      handle = connectPostgres(url.toString(), 5);
    });
    afterAll(async () => {
      await handle.close().catch(() => undefined);
      await proxy.stop();
    });

    it('gives a clear error, never a partial list, and completes once Postgres is back', async () => {
      const d = partialInstance(handle);
      d.reads.holdPages();
      expect(await reportNames(d.catalogs, five)).toHaveLength(5);

      await proxy.stop();
      d.reads.releasePages();
      await d.store.completion.idle();
      // the caller whose reports are held is still served them
      expect(await reportNames(d.catalogs, five)).toHaveLength(5);
      // a caller whose reports are not held, and an admin, get a clear error, not a part
      for (const who of [other, admin])
        await expect(d.catalogs.visibleSet(who)).rejects.toMatchObject({
          code: 'DATABASE_UNAVAILABLE',
        });

      await proxy.start(proxy.port);
      const back = await eventually(() => reportNames(d.catalogs, other), { timeoutMs: 20_000 });
      expect(back).toEqual(await otherNow());
      // the background load is tried again and completes
      expect(await reportNames(d.catalogs, admin)).toEqual(await allNow());
      expect((await d.store.catalog(TENANT)).reports.complete).toBe(true);
      await d.admission.idle();
    });
  });
});
