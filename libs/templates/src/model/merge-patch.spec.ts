import { mergePatch } from './merge-patch';

describe('mergePatch (RFC 7396)', () => {
  const doc = {
    name: 'Sales',
    chart: { type: 'bar', x: 'region', y: ['total'] },
    synonyms: ['revenue', 'turnover'],
    run_as_task: true,
    cache_ttl_seconds: 60,
  };

  it('leaves every member the patch does not name untouched, unknown ones included', () => {
    expect(mergePatch(doc, { name: 'Sales by region' })).toEqual({
      ...doc,
      name: 'Sales by region',
    });
    expect(mergePatch(doc, {})).toEqual(doc);
  });

  it('removes a member set to null, merges objects member by member, replaces arrays whole', () => {
    expect(mergePatch(doc, { run_as_task: null, chart: { x: null, series: 'month' } })).toEqual({
      name: 'Sales',
      chart: { type: 'bar', y: ['total'], series: 'month' },
      synonyms: ['revenue', 'turnover'],
      cache_ttl_seconds: 60,
    });
    expect(mergePatch(doc, { synonyms: ['sales'] })).toMatchObject({ synonyms: ['sales'] });
  });

  it('does not change its inputs', () => {
    const before = JSON.stringify(doc);
    mergePatch(doc, { chart: { type: 'line' }, name: null });
    expect(JSON.stringify(doc)).toBe(before);
  });

  it('a patch that is not an object replaces the target (RFC 7396 section 2)', () => {
    expect(mergePatch(doc, ['a'])).toEqual(['a']);
    expect(mergePatch({ a: { b: 1 } }, { a: 'x' })).toEqual({ a: 'x' });
  });
});
