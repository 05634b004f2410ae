import { Coverage, isEmptyPart } from './report-coverage';

const none = () => false;

describe('Coverage', () => {
  it('misses every category and id of a reach at first, each once', () => {
    const reach = { categories: ['sales', 'hr', 'sales'], ids: ['r1', 'r2', 'r1'] };
    expect(Coverage.none().missing(reach, none)).toEqual({
      categories: ['sales', 'hr'],
      ids: ['r1', 'r2'],
    });
  });

  it('misses only what was not added, nor held by the set', () => {
    const coverage = Coverage.none();
    coverage.add({ categories: ['sales'], ids: ['r1'] });
    const held = (id: string) => id === 'r2';
    const missing = coverage.missing(
      { categories: ['sales', 'hr'], ids: ['r1', 'r2', 'r3'] },
      held,
    );
    expect(missing).toEqual({ categories: ['hr'], ids: ['r3'] });
  });

  it('accepts any iterable reach', () => {
    const reach = { categories: new Set(['a']), ids: new Map([['x', 1]]).keys() };
    expect(Coverage.none().missing(reach, none)).toEqual({ categories: ['a'], ids: ['x'] });
  });

  it('copies independently: what the copy learns the original does not', () => {
    const original = Coverage.none();
    original.add({ categories: ['a'], ids: [] });
    const copy = original.copy();
    copy.add({ categories: ['b'], ids: ['x'] });
    const reach = { categories: ['a', 'b'], ids: ['x'] };
    expect(copy.missing(reach, none)).toEqual({ categories: [], ids: [] });
    expect(original.missing(reach, none)).toEqual({ categories: ['b'], ids: ['x'] });
  });
});

describe('isEmptyPart', () => {
  it('is true only when a part names neither a category nor an id', () => {
    expect(isEmptyPart({ categories: [], ids: [] })).toBe(true);
    expect(isEmptyPart({ categories: ['a'], ids: [] })).toBe(false);
    expect(isEmptyPart({ categories: [], ids: ['x'] })).toBe(false);
  });
});
