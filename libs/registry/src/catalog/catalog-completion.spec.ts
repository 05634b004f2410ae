import { initSqlParser } from '@app/templates';
import { AccessPolicy } from '../access/access-policy';
import type { Principal } from '../access/principal';
import { RegistryError } from '../errors';
import type { Metrics } from '../metrics';
import { betterBase, CatalogCompletion, installation } from './catalog-completion';
import type { CompletionHost } from './catalog-completion';
import { accessRecords, admitAll, storedReport, TENANT } from './fixtures.spec-helper';
import type { Reach } from './model/report-coverage';
import { ReportSet } from './model/report-set';
import { TenantCatalog } from './model/tenant-catalog';

const access = accessRecords({
  roles: [
    { name: 'sales', isAdmin: false },
    { name: 'admin', isAdmin: true },
  ],
  roleGrants: [
    { role: 'sales', category: 'sales', reportId: null },
    { role: 'sales', category: null, reportId: 'one' },
  ],
});

function catalog(version: number, complete: boolean, createdAt = TENANT.createdAt): TenantCatalog {
  const reports = complete
    ? ReportSet.of([storedReport('a', 'sales')], 'scope', admitAll)
    : ReportSet.partial('scope', admitAll);
  return new TenantCatalog(
    { ...TENANT, catalogVersion: version, createdAt },
    reports,
    new AccessPolicy(access),
  );
}

const metrics = { describe: () => undefined, set: () => undefined } as unknown as Metrics;
const seller: Principal = { tenantId: TENANT.id, userId: 'sam', roles: ['sales'], claims: {} };
const admin: Principal = { tenantId: TENANT.id, userId: 'ada', roles: ['admin'], claims: {} };

// loading the parser (WebAssembly) can take seconds on a loaded machine
beforeAll(() => initSqlParser(), 30_000);

describe('installation', () => {
  it('puts a complete catalog in place of a partial one of its version or older', () => {
    expect(installation(catalog(7, true), catalog(7, false), undefined)).toEqual({
      previous: true,
      state: 'replace',
    });
    expect(installation(catalog(8, true), catalog(7, false), catalog(7, false)).state).toBe(
      'replace',
    );
  });

  it('drops a partial catalog newer than the complete one (the next request refreshes it)', () => {
    expect(installation(catalog(7, true), catalog(9, false), catalog(9, false))).toEqual({
      previous: true,
      state: 'drop',
    });
  });

  it('leaves alone a complete catalog held, and another incarnation of the tenant', () => {
    expect(installation(catalog(7, true), catalog(9, true), catalog(9, true))).toEqual({
      previous: false,
      state: 'keep',
    });
    const reborn = catalog(1, false, '2026-12-01T00:00:00Z');
    expect(installation(catalog(7, true), reborn, undefined).state).toBe('keep');
  });
});

describe('betterBase', () => {
  it('never lets a partial or older catalog replace a complete base', () => {
    expect(betterBase(catalog(9, false), catalog(7, true))).toBe(false);
    expect(betterBase(catalog(6, true), catalog(7, true))).toBe(false);
    expect(betterBase(catalog(7, true), catalog(7, true))).toBe(true);
    expect(betterBase(catalog(9, false), catalog(7, false))).toBe(true);
    expect(betterBase(catalog(9, false), undefined)).toBe(true);
    expect(betterBase(catalog(1, false, '2026-12-01T00:00:00Z'), catalog(7, true))).toBe(true);
  });
});

/** A host whose held catalog and loads the test controls. */
function host(held: TenantCatalog) {
  const state = { held, loads: 0, covered: [] as Reach[], failLoad: false, failCover: false };
  const h: CompletionHost = {
    held: () => Promise.resolve(state.held),
    load: async () => {
      state.loads++;
      if (state.failLoad) throw new Error('connection terminated unexpectedly');
      return catalog(state.held.version, true);
    },
    cover: async (_catalog, reach) => {
      if (state.failCover) throw new Error('connection refused');
      state.covered.push(reach);
    },
    install: (done) => {
      state.held = done;
    },
  };
  return { state, completion: new CatalogCompletion(h, metrics) };
}

describe('CatalogCompletion', () => {
  it('runs one background load per tenant however many ask, and installs it', async () => {
    const { state, completion } = host(catalog(7, false));
    const [a, b] = await Promise.all([completion.start('acme'), completion.start('acme')]);
    expect(a).toBe(b);
    expect(state.loads).toBe(1);
    expect(state.held).toBe(a);
  });

  it('a failed load installs nothing, rejects as DATABASE_UNAVAILABLE, and is tried again', async () => {
    const partial = catalog(7, false);
    const { state, completion } = host(partial);
    state.failLoad = true;
    const failed = completion.start('acme');
    await expect(failed).rejects.toBeInstanceOf(RegistryError);
    await expect(failed).rejects.toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
    expect(state.held).toBe(partial);
    state.failLoad = false;
    expect((await completion.complete('acme')).reports.complete).toBe(true);
    expect(state.loads).toBe(2);
  });

  it('reads only the caller’s reach into a partial catalog; an admin waits for the whole', async () => {
    const { state, completion } = host(catalog(7, false));
    const forSeller = await completion.covering(seller);
    expect(forSeller.reports.complete).toBe(false);
    expect(state.covered).toHaveLength(1);
    expect([...state.covered[0]!.categories]).toEqual(['sales']);
    expect([...state.covered[0]!.ids]).toEqual(['one']);
    await completion.idle();
    // the background load the covering kicked off installed the complete catalog
    expect(state.held.reports.complete).toBe(true);
    const { state: s2, completion: c2 } = host(catalog(7, false));
    expect((await c2.covering(admin)).reports.complete).toBe(true);
    expect(s2.covered).toHaveLength(0);
  });

  it('a failed read of the caller’s reach is DATABASE_UNAVAILABLE, never a partial answer', async () => {
    const { state, completion } = host(catalog(7, false));
    state.failCover = true;
    await expect(completion.covering(seller)).rejects.toMatchObject({
      code: 'DATABASE_UNAVAILABLE',
    });
  });

  it('gives up with DATABASE_UNAVAILABLE when every load is overtaken by a newer version', async () => {
    const partial = catalog(7, false);
    const { state, completion } = host(partial);
    let version = 7;
    // every load brings a complete catalog the host does not keep (a newer partial is held)
    state.held = partial;
    const h = completion as unknown as { host: CompletionHost };
    h.host.install = () => {
      state.held = catalog(++version, false);
    };
    await expect(completion.complete('acme')).rejects.toMatchObject({
      code: 'DATABASE_UNAVAILABLE',
    });
    expect(state.loads).toBe(3);
  });
});
