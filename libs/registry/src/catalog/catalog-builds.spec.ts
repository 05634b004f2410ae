import { RegistryError } from '../errors';
import type { Metrics } from '../metrics';
import { CatalogBuilds } from './catalog-builds';
import type { BuildSource } from './catalog-builds';
import type { CatalogStamp } from './load/catalog-loader';
import type { TenantCatalog } from './model/tenant-catalog';

const CREATED = '2026-11-30T00:00:00Z';
const STAMP: CatalogStamp = { version: 1, createdAt: CREATED };

function catalogAt(version: number, complete = true): TenantCatalog {
  return {
    tenant: { id: 'acme', createdAt: CREATED },
    version,
    reports: { complete },
  } as unknown as TenantCatalog;
}

/** A loader answering the catalogs the test queues, recording the base of each load. */
function setup(capacity = 10) {
  const next: Array<TenantCatalog | Error> = [];
  const bases: Array<TenantCatalog | undefined> = [];
  const changes = new Map<TenantCatalog, string[]>();
  const loader: BuildSource = {
    load: (_tenantId, _stamp, base) => {
      bases.push(base);
      const answer = next.shift()!;
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
    appliedChanges: (catalog) => changes.get(catalog) ?? [],
  };
  const observed: number[] = [];
  const metrics = {
    observe: (_name: string, _labels: object, value: number) => observed.push(value),
  } as unknown as Metrics;
  const partial: string[] = [];
  const builds = new CatalogBuilds(loader, metrics, capacity, (id) => partial.push(id));
  return { builds, next, bases, changes, observed, partial };
}

describe('CatalogBuilds', () => {
  it('builds each catalog on the last one built, and keeps a complete base over a partial', async () => {
    const { builds, next, bases, partial } = setup();
    const first = catalogAt(1);
    const partialOne = catalogAt(2, false);
    next.push(first, partialOne, catalogAt(3));
    await builds.build('acme', STAMP);
    const { catalog } = await builds.build('acme', STAMP);
    await builds.build('acme', STAMP);
    expect(catalog).toBe(partialOne);
    expect(bases).toEqual([undefined, first, first]);
    expect(partial).toEqual(['acme']);
  });

  it('forgets the base of a tenant that is gone, and only then', async () => {
    const { builds, next, bases } = setup();
    const first = catalogAt(1);
    next.push(first, new Error('connection refused'), new RegistryError('TENANT_NOT_FOUND', 'x'));
    await builds.build('acme', STAMP);
    await expect(builds.build('acme', STAMP)).rejects.toThrow('connection refused');
    expect(builds.base('acme')).toBe(first);
    await expect(builds.build('acme', STAMP)).rejects.toThrow(RegistryError);
    expect(builds.base('acme')).toBeUndefined();
    expect(bases).toEqual([undefined, first, first]);
  });

  it('measures the lag from the notice of a change to the build that applied it', async () => {
    const { builds, next, changes, observed } = setup();
    const built = catalogAt(2);
    const changedAt = new Date(Date.now() - 5000).toISOString();
    changes.set(built, [changedAt]);
    next.push(catalogAt(1), built);
    await builds.build('acme', STAMP);
    expect(observed).toEqual([]);
    builds.notified(['acme'], Date.now() - 3000);
    await builds.build('acme', STAMP);
    expect(observed).toHaveLength(1);
    expect(observed[0]).toBeGreaterThanOrEqual(2);
    expect(observed[0]).toBeLessThan(4);
  });

  it('holds at most `capacity` bases', async () => {
    const { builds, next } = setup(1);
    const acme = catalogAt(1);
    const globex = { ...catalogAt(1), tenant: { id: 'globex', createdAt: CREATED } };
    next.push(acme, globex as TenantCatalog);
    await builds.build('acme', STAMP);
    await builds.build('globex', STAMP);
    expect(builds.base('acme')).toBeUndefined();
    expect(builds.base('globex')).toBe(globex);
  });
});
