import { storedReport } from '../fixtures.spec-helper';
import { patchedParts } from './report-set-patch';
import type { Parts } from './report-set-patch';

function parts(): Parts {
  const a = storedReport('a', 'sales');
  const b = storedReport('b', 'sales');
  const c = storedReport('c', 'finance');
  return {
    stored: new Map([a, b, c].map((s) => [s.metadata.id, s])),
    verdicts: new Map(),
    served: new Map(),
    byCategory: new Map([
      ['sales', ['a', 'b']],
      ['finance', ['c']],
    ]),
  };
}

describe('patchedParts', () => {
  it('puts changed reports in, takes removed ones out, and leaves the given parts as they were', () => {
    const before = parts();
    const next = patchedParts(
      before,
      [storedReport('d', 'finance'), storedReport('b', 'hr')],
      ['a'],
    );
    expect([...next.stored.keys()].sort()).toEqual(['b', 'c', 'd']);
    expect(Object.fromEntries(next.byCategory)).toEqual({ finance: ['c', 'd'], hr: ['b'] });
    expect([...before.stored.keys()]).toEqual(['a', 'b', 'c']);
    expect(before.byCategory.get('sales')).toEqual(['a', 'b']);
  });

  it('keeps the untouched categories as the very same lists', () => {
    const before = parts();
    const next = patchedParts(before, [storedReport('d', 'sales')], []);
    expect(next.byCategory.get('finance')).toBe(before.byCategory.get('finance'));
    expect(next.byCategory.get('sales')).toEqual(['a', 'b', 'd']);
  });
});
