import { TENANT } from '../fixtures.spec-helper';
import {
  catalogKey,
  listKey,
  openListBody,
  openSnapshot,
  seal,
  tenantScope,
  unseal,
} from './l2-values';
import { snapshotOf } from '../snapshot.spec-helper';

const expected = {
  tenantId: TENANT.id,
  createdAt: TENANT.createdAt,
  version: TENANT.catalogVersion,
};

describe('seal and unseal', () => {
  it('gives back the body it sealed, whatever it contains', () => {
    for (const body of ['', '{"tools":[]}', 'a.b.c', 'ünïcode ✓'])
      expect(unseal(seal(body))).toBe(body);
  });

  it('refuses a truncated, altered, foreign or differently versioned value', () => {
    const sealed = seal('{"tools":[1,2,3]}');
    const [version, digest] = sealed.split('.');
    expect(unseal(sealed.slice(0, -1))).toBeUndefined();
    expect(unseal(sealed.replace('1,2', '1,9'))).toBeUndefined();
    expect(unseal('{"tools":[]}')).toBeUndefined();
    expect(unseal(`${version}.${digest}`)).toBeUndefined();
    expect(unseal(`x${sealed}`)).toBeUndefined();
    expect(unseal(sealed.replace(`${version}.`, 'g0.'))).toBeUndefined();
  });
});

describe('keys', () => {
  it('names the tenant, its incarnation in this database and the version', () => {
    const scope = tenantScope('db1', TENANT);
    expect(scope.startsWith(`${TENANT.id}.`)).toBe(true);
    expect(tenantScope('db1', TENANT)).toBe(scope);
    expect(tenantScope('db2', TENANT)).not.toBe(scope);
    expect(tenantScope('db1', { ...TENANT, createdAt: '2027-01-01T00:00:00Z' })).not.toBe(scope);
    expect(tenantScope('db1', { ...TENANT, id: 'globex' })).not.toBe(scope);
    expect(catalogKey(scope, 3)).not.toBe(catalogKey(scope, 4));
    expect(catalogKey(scope, 3)).toContain(scope);
    expect(listKey(scope, 'acme:3:k:json')).toContain(scope);
    expect(listKey(scope, 'a')).not.toBe(catalogKey(scope, 3));
  });
});

describe('openListBody', () => {
  it('opens an intact body holding a tools array', () => {
    const body = JSON.stringify({ tools: [{ name: 'query_report_a' }] });
    expect(openListBody(seal(body))).toBe(body);
  });

  it('drops a corrupt value, a body that is not JSON, and JSON without a tools array', () => {
    const body = JSON.stringify({ tools: [] });
    expect(openListBody(seal(body).slice(0, -2))).toBeUndefined();
    expect(openListBody(seal('{"tools":['))).toBeUndefined();
    expect(openListBody(seal('[]'))).toBeUndefined();
    expect(openListBody(seal('null'))).toBeUndefined();
    expect(openListBody(seal(JSON.stringify({ tools: 'all' })))).toBeUndefined();
  });
});

describe('openSnapshot', () => {
  it('opens a sound snapshot of the incarnation and version asked for', () => {
    const snapshot = snapshotOf();
    expect(openSnapshot(seal(JSON.stringify(snapshot)), expected)).toEqual(snapshot);
  });

  it('drops a value whose seal is broken, before parsing it', () => {
    const raw = seal(JSON.stringify(snapshotOf()));
    expect(openSnapshot(raw.slice(0, raw.length - 10), expected)).toBeUndefined();
    expect(openSnapshot(JSON.stringify(snapshotOf()), expected)).toBeUndefined();
  });

  it('drops an intact value that is not JSON or not of the snapshot shape', () => {
    expect(openSnapshot(seal('{"tenant":'), expected)).toBeUndefined();
    const extra = { ...snapshotOf(), injected: true };
    expect(openSnapshot(seal(JSON.stringify(extra)), expected)).toBeUndefined();
  });

  it('drops a snapshot of another tenant, incarnation or version', () => {
    const raw = seal(JSON.stringify(snapshotOf()));
    expect(openSnapshot(raw, { ...expected, tenantId: 'globex' })).toBeUndefined();
    expect(openSnapshot(raw, { ...expected, createdAt: '2027-01-01T00:00:00Z' })).toBeUndefined();
    expect(openSnapshot(raw, { ...expected, version: expected.version + 1 })).toBeUndefined();
  });

  it("drops a snapshot holding another tenant's report", () => {
    const snapshot = snapshotOf();
    snapshot.reports[1].metadata.tenantId = 'globex';
    expect(openSnapshot(seal(JSON.stringify(snapshot)), expected)).toBeUndefined();
  });
});
