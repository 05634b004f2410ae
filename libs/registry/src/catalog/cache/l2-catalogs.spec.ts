import { Metrics } from '../../metrics';
import { FakeRedis } from '../fake-redis.spec-helper';
import { TENANT } from '../fixtures.spec-helper';
import { L2_MAX_REPORTS, L2Catalogs } from './l2-catalogs';
import { catalogKey, seal, tenantScope } from './l2-values';
import { SharedCache } from './shared-cache';
import { snapshotOf } from '../snapshot.spec-helper';
import { storedReport } from '../fixtures.spec-helper';

const stamp = { version: TENANT.catalogVersion, createdAt: TENANT.createdAt };

/** The database identity read, counting reads; `fail` makes the next reads reject. */
function identity(id = 'db-1') {
  const state = { reads: 0, fail: false };
  const repository = {
    databaseIdentity: () => {
      state.reads++;
      return state.fail ? Promise.reject(new Error('permission denied')) : Promise.resolve(id);
    },
  };
  return { state, repository };
}

function setup(withRedis = true, ttl = 120) {
  const redis = new FakeRedis();
  const metrics = new Metrics();
  const shared = new SharedCache(metrics, withRedis ? redis.asRedis() : null);
  const { state, repository } = identity();
  const l2 = new L2Catalogs(shared, repository, ttl);
  return { redis, metrics, l2, state };
}

describe('L2Catalogs', () => {
  it('stores a snapshot under its incarnation and version, with the TTL, and reads it back', async () => {
    const { redis, l2 } = setup(true, 77);
    const snapshot = snapshotOf();
    await l2.store(snapshot, stamp);
    const key = catalogKey(tenantScope('db-1', TENANT), stamp.version);
    expect(redis.expiries.get(key)).toBe(77);
    await expect(l2.read(TENANT.id, stamp)).resolves.toEqual(snapshot);
  });

  it('does not answer another version or incarnation with a stored snapshot', async () => {
    const { l2 } = setup();
    await l2.store(snapshotOf(), stamp);
    await expect(
      l2.read(TENANT.id, { ...stamp, version: stamp.version + 1 }),
    ).resolves.toBeUndefined();
    await expect(
      l2.read(TENANT.id, { ...stamp, createdAt: '2027-01-01T00:00:00Z' }),
    ).resolves.toBeUndefined();
  });

  it("never answers one tenant with another's snapshot, even under its key", async () => {
    const { redis, l2 } = setup();
    const other = snapshotOf({ ...TENANT, id: 'globex' });
    const acmeKey = catalogKey(tenantScope('db-1', TENANT), stamp.version);
    redis.values.set(acmeKey, seal(JSON.stringify(other)));
    await expect(l2.read(TENANT.id, stamp)).resolves.toBeUndefined();
    expect(redis.values.has(acmeKey)).toBe(false);
  });

  it('drops a corrupt snapshot instead of serving it', async () => {
    const { redis, metrics, l2 } = setup();
    await l2.store(snapshotOf(), stamp);
    const key = catalogKey(tenantScope('db-1', TENANT), stamp.version);
    redis.values.set(key, (redis.values.get(key) ?? '').slice(0, -5));
    await expect(l2.read(TENANT.id, stamp)).resolves.toBeUndefined();
    expect(metrics.value('gateway_l2_rejected_total')).toBe(1);
    expect(redis.values.has(key)).toBe(false);
  });

  it('stores nothing read at another version or incarnation than the stamp', async () => {
    const { redis, l2 } = setup();
    await l2.store(snapshotOf(), { ...stamp, version: stamp.version + 1 });
    await l2.store(snapshotOf(), { ...stamp, createdAt: '2027-01-01T00:00:00Z' });
    expect(redis.values.size).toBe(0);
  });

  it('stores no snapshot of a tenant above L2_MAX_REPORTS reports', async () => {
    const { redis, l2 } = setup();
    const big = snapshotOf();
    big.reports = Array.from({ length: L2_MAX_REPORTS + 1 }, (_, i) =>
      storedReport(`r${i}`, 'bulk'),
    );
    await l2.store(big, stamp);
    expect(redis.values.size).toBe(0);
  });

  it('reads the database identity once, and skips L2 while it cannot be read', async () => {
    const { redis, l2, state } = setup();
    state.fail = true;
    await expect(l2.scope(TENANT)).resolves.toBeUndefined();
    await l2.store(snapshotOf(), stamp);
    expect(redis.values.size).toBe(0);
    state.fail = false;
    const scope = await l2.scope(TENANT);
    expect(scope).toBe(tenantScope('db-1', TENANT));
    await l2.scope(TENANT);
    await l2.scope({ id: 'globex', createdAt: TENANT.createdAt });
    // one failed read retried, then one read shared by every later scope
    expect(state.reads).toBe(3);
  });

  it('has no scope and reads nothing when the shared cache is off', async () => {
    const { l2, state } = setup(false);
    await expect(l2.scope(TENANT)).resolves.toBeUndefined();
    await l2.store(snapshotOf(), stamp);
    await expect(l2.read(TENANT.id, stamp)).resolves.toBeUndefined();
    expect(state.reads).toBe(0);
  });
});
