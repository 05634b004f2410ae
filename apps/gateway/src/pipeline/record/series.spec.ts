import { SeriesCache, statusClass } from './series';

describe('SeriesCache', () => {
  it('makes one series per tuple of label values and returns it again after', () => {
    const made: string[][] = [];
    const cache = new SeriesCache((values) => {
      made.push([...values]);
      return { values: [...values] };
    });
    const first = cache.get(['GET', '/v1/tools', '2xx']);
    expect(cache.get(['GET', '/v1/tools', '2xx'])).toBe(first);
    expect(cache.get(['GET', '/v1/tools', '4xx'])).not.toBe(first);
    expect(cache.get(['rest', 'ok'])).toEqual({ values: ['rest', 'ok'] });
    expect(made).toEqual([
      ['GET', '/v1/tools', '2xx'],
      ['GET', '/v1/tools', '4xx'],
      ['rest', 'ok'],
    ]);
  });

  it('gives the series of the tuple asked for when tuples of one metric alternate or repeat', () => {
    const cache = new SeriesCache((values) => values.join('+'));
    const asked = [
      ['a', 'b'],
      ['a', 'b'],
      ['a', 'c'],
      ['a', 'b'],
      ['a', 'b'],
    ];
    for (const values of asked) expect(cache.get(values)).toBe(values.join('+'));
    const values = ['x', 'y'];
    expect(cache.get(values)).toBe('x+y');
    values[1] = 'z'; // a caller reusing its array
    expect(cache.get(values)).toBe('x+z');
  });

  it('does not confuse tuples whose joined text is the same', () => {
    const cache = new SeriesCache((values) => values.join('+'));
    expect(cache.get(['a|b', 'c'])).toBe('a|b+c');
    expect(cache.get(['a', 'b|c'])).toBe('a+b|c');
  });
});

describe('statusClass', () => {
  it('names the class of a status code', () => {
    expect(statusClass(200)).toBe('2xx');
    expect(statusClass(429)).toBe('4xx');
    expect(statusClass(499)).toBe('4xx');
    expect(statusClass(503)).toBe('5xx');
    expect(statusClass(600)).toBe('6xx');
  });
});
