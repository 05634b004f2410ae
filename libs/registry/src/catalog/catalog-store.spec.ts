import { RegistryError } from '../errors';
import type { Metrics } from '../metrics';
import type { TenantCatalog } from './model/tenant-catalog';
import type { CatalogStamp } from './load/catalog-loader';
import { CatalogStore } from './catalog-store';
import type { CatalogSource } from './catalog-store';
import { CatalogChangeFeed } from './load/change-feed';

const CREATED = '2026-11-30T00:00:00Z';

function catalogAt(tenantId: string, version: number, createdAt = CREATED): TenantCatalog {
  return {
    tenant: { id: tenantId, createdAt },
    version,
    reports: { complete: true },
  } as unknown as TenantCatalog;
}

/** A loader over a version table the test edits; loads wait until the test lets them go. */
class FakeLoader implements CatalogSource {
  readonly versions = new Map<string, number>();
  down = false;
  hold = false;
  loads: Array<{ tenantId: string; previous?: TenantCatalog }> = [];
  private readonly waiting: Array<() => void> = [];

  stamp(tenantId: string): Promise<CatalogStamp | undefined> {
    if (this.down) return Promise.reject(new Error('connection refused'));
    const version = this.versions.get(tenantId);
    return Promise.resolve(version === undefined ? undefined : { version, createdAt: CREATED });
  }

  async load(tenantId: string, _stamp: CatalogStamp, previous?: TenantCatalog) {
    this.loads.push({ tenantId, previous });
    if (this.hold) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.down) throw new Error('connection refused');
    const version = this.versions.get(tenantId);
    if (version === undefined)
      throw new RegistryError('TENANT_NOT_FOUND', 'the token names a tenant that does not exist');
    return catalogAt(tenantId, version);
  }

  l2Scope(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }

  release(): void {
    this.hold = false;
    for (const go of this.waiting.splice(0)) go();
  }
}

function setup(capacity?: number) {
  const loader = new FakeLoader();
  const counted: string[] = [];
  const metrics = {
    describe: () => undefined,
    set: () => undefined,
    inc: (name: string) => counted.push(name),
  } as unknown as Metrics;
  const listen = { listen: () => new Promise<never>(() => undefined) };
  const feed = new CatalogChangeFeed(listen, metrics, {
    statementTimeoutMs: 1000,
    maxResultBytes: 1024,
    cacheTtlSeconds: 60,
    staleAfterMs: 0,
  });
  const store = new CatalogStore(loader, feed, metrics, capacity);
  return { loader, feed, store, counted };
}

describe('CatalogStore', () => {
  it('merges concurrent misses of a tenant into one build', async () => {
    const { loader, store } = setup();
    loader.versions.set('acme', 1);
    loader.hold = true;
    const asked = [store.catalog('acme'), store.catalog('acme'), store.catalog('acme')];
    await new Promise((resolve) => setImmediate(resolve));
    loader.release();
    const catalogs = await Promise.all(asked);
    expect(loader.loads).toHaveLength(1);
    expect(new Set(catalogs).size).toBe(1);
  });

  it('answers from memory while the change feed vouches for it', async () => {
    const { loader, feed, store } = setup();
    loader.versions.set('acme', 1);
    const first = await store.catalog('acme');
    feed.freshness.listening = true;
    loader.down = true;
    expect(store.current('acme')).toBe(first);
    await expect(store.catalog('acme')).resolves.toBe(first);
  });

  it('rebuilds a tenant after a change notice, from the catalog it held before', async () => {
    const { loader, feed, store } = setup();
    loader.versions.set('acme', 1);
    const first = await store.catalog('acme');
    feed.freshness.listening = true;
    loader.versions.set('acme', 2);
    feed.publish('acme');
    expect(store.current('acme')).toBeUndefined();
    const second = await store.catalog('acme');
    expect(second.version).toBe(2);
    expect(loader.loads[1].previous).toBe(first);
  });

  it('answers the callers of a build a change notice overtook, but does not keep it', async () => {
    const { loader, feed, store } = setup();
    feed.freshness.listening = true;
    loader.versions.set('acme', 1);
    loader.hold = true;
    const asked = store.catalog('acme');
    await new Promise((resolve) => setImmediate(resolve));
    feed.publish('*');
    loader.release();
    await expect(asked).resolves.toMatchObject({ version: 1 });
    expect(store.current('acme')).toBeUndefined();
    await store.catalog('acme');
    expect(loader.loads).toHaveLength(2);
  });

  it('serves the last catalog while Postgres is unreachable, and counts it', async () => {
    const { loader, store, counted } = setup();
    loader.versions.set('acme', 1);
    const first = await store.catalog('acme');
    loader.down = true;
    await expect(store.catalog('acme')).resolves.toBe(first);
    expect(counted).toContain('gateway_catalog_stale_serves_total');
  });

  it('refuses with DATABASE_UNAVAILABLE a tenant it never held while Postgres is unreachable', async () => {
    const { loader, store } = setup();
    loader.down = true;
    await expect(store.catalog('acme')).rejects.toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
  });

  it('keeps the catalog it held when a rebuild fails', async () => {
    const { loader, store } = setup();
    loader.versions.set('acme', 1);
    const first = await store.catalog('acme');
    loader.versions.set('acme', 2);
    loader.hold = true;
    const asked = store.catalog('acme');
    await new Promise((resolve) => setImmediate(resolve));
    loader.down = true;
    loader.release();
    await expect(asked).rejects.toThrow('connection refused');
    expect(store.lastKnown('acme')).toBe(first);
  });

  it('forgets a tenant that no longer exists', async () => {
    const { loader, store } = setup();
    loader.versions.set('acme', 1);
    await store.catalog('acme');
    loader.versions.delete('acme');
    await expect(store.catalog('acme')).rejects.toMatchObject({ code: 'TENANT_NOT_FOUND' });
    expect(store.lastKnown('acme')).toBeUndefined();
    loader.versions.set('acme', 1);
    await store.catalog('acme');
    expect(loader.loads.at(-1)?.previous).toBeUndefined();
  });

  it('holds at most its capacity of tenants', async () => {
    const { loader, store } = setup(2);
    for (const t of ['a', 'b', 'c']) loader.versions.set(t, 1);
    for (const t of ['a', 'b', 'c']) await store.catalog(t);
    expect(store.lastKnown('a')).toBeUndefined();
    expect(store.lastKnown('c')).toBeDefined();
  });

  it('tells its own listeners of a change made here, after memory forgot it', async () => {
    const { loader, feed, store } = setup();
    feed.freshness.listening = true;
    loader.versions.set('acme', 1);
    await store.catalog('acme');
    const heard: Array<[string, boolean]> = [];
    store.onChange((t) => heard.push([t, store.current('acme') === undefined]));
    store.invalidate('acme');
    expect(heard).toEqual([['acme', true]]);
  });
});
