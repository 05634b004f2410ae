import { seal } from '../catalog/cache/l2-values';
import { openResult, resultKey, sealResult } from './result-values';
import type { CachedPage, ResultKeyParts } from './result-values';

const PARTS: ResultKeyParts = {
  scope: 'acme.abc',
  reportId: 'orders',
  catalogVersion: 7,
  sourceRevision: '',
  text: 'SELECT 1 WHERE $1 = $2 LIMIT $3 OFFSET $4',
  values: ['alice', 'north', 21, 0],
};

const PAGE: CachedPage = {
  cachedAt: '2026-12-06T04:00:00.000Z',
  expiresAt: 2_000_000_000_000,
  columns: [{ name: 'n', type: 'integer' }],
  page: 1,
  page_size: 20,
  has_more: false,
  rows: [{ n: 1 }],
  rowsJson: '[{"n":1}]',
};

describe('resultKey: who may share a cached page', () => {
  it('is the same for the same query, and differs with anything the rows depend on', () => {
    const key = resultKey(PARTS);
    expect(resultKey({ ...PARTS })).toBe(key);
    expect(key.startsWith('result:acme.abc:orders:v7:')).toBe(true);
    for (const changed of [
      { scope: 'globex.abc' },
      { reportId: 'other' },
      { catalogVersion: 8 },
      { sourceRevision: '2026-12-06T04:00:00Z' },
      { text: 'SELECT 2 WHERE $1 = $2 LIMIT $3 OFFSET $4' },
      { values: ['bob', 'north', 21, 0] }, // another caller's bound identity
      { values: ['alice', 'south', 21, 0] },
      { values: ['alice', 'north', 21, 20] }, // another page
    ])
      expect(resultKey({ ...PARTS, ...changed })).not.toBe(key);
  });

  it('tells values apart that print alike', () => {
    expect(resultKey({ ...PARTS, values: [1] })).not.toBe(resultKey({ ...PARTS, values: ['1'] }));
    expect(resultKey({ ...PARTS, values: [null] })).not.toBe(
      resultKey({ ...PARTS, values: ['null'] }),
    );
  });
});

describe('openResult: a Redis value is an answer only when intact, for this key, and fresh', () => {
  const key = resultKey(PARTS);
  const now = Date.parse('2026-12-06T04:00:01Z');

  it('opens what sealResult wrote', () => {
    expect(openResult(sealResult(key, PAGE), key, now)).toEqual(PAGE);
  });

  it('refuses a value written for another key (another tenant or caller)', () => {
    const other = resultKey({ ...PARTS, values: ['bob', 'north', 21, 0] });
    expect(openResult(sealResult(other, PAGE), key, now)).toBeUndefined();
  });

  it('refuses a truncated, tampered or unsealed value', () => {
    const raw = sealResult(key, PAGE);
    expect(openResult(raw.slice(0, -3), key, now)).toBeUndefined();
    expect(openResult(raw.replace('"n":1', '"n":2'), key, now)).toBeUndefined();
    expect(openResult('[{"n":1}]', key, now)).toBeUndefined();
    expect(openResult('g1.forged.[{"n":1}]', key, now)).toBeUndefined();
  });

  it('refuses an expired value and a value of the wrong shape, even when sealed', () => {
    expect(openResult(sealResult(key, PAGE), key, PAGE.expiresAt + 1)).toBeUndefined();
    const header = JSON.stringify({ key, cachedAt: PAGE.cachedAt, expiresAt: PAGE.expiresAt });
    expect(openResult(seal(`${header}\n[{"n":1}]`), key, now)).toBeUndefined();
    const good = JSON.stringify({
      ...JSON.parse(header),
      columns: [],
      page: 1,
      page_size: 20,
      has_more: false,
    });
    expect(openResult(seal(`${good}\n{"n":1}`), key, now)).toBeUndefined();
    expect(openResult(seal(`${good}\n[1,2]`), key, now)).toBeUndefined();
    expect(openResult(seal(`${good}\n[{"n":1}]`), key, now)?.rows).toEqual([{ n: 1 }]);
  });
});
