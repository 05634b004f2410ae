import { flatString, ValuePool } from './shared-values';

describe('ValuePool', () => {
  it('gives equal values one frozen copy, shared from the leaves up', () => {
    const pool = new ValuePool(100);
    const page = () => ({ type: 'integer', minimum: 1 });
    const a = pool.share({
      type: 'object',
      properties: { page: page(), region: { type: 'string' } },
    });
    const b = pool.share({
      type: 'object',
      properties: { page: page(), region: { type: 'string' } },
    });
    const c = pool.share({
      type: 'object',
      properties: { page: page(), total: { type: 'number' } },
    });
    expect(b).toBe(a);
    expect(c).not.toBe(a);
    expect(c.properties.page).toBe(a.properties.page);
    expect(c).toEqual({ type: 'object', properties: { page: page(), total: { type: 'number' } } });
    expect(Object.isFrozen(a) && Object.isFrozen(a.properties.page)).toBe(true);
  });

  it('keeps arrays in order and values that are not objects as they are', () => {
    const pool = new ValuePool(100);
    expect(pool.share({ enum: ['b', 'a'] }).enum).toEqual(['b', 'a']);
    expect(pool.share({ enum: ['a', 'b'] })).not.toBe(pool.share({ enum: ['b', 'a'] }));
    expect(pool.share('text')).toBe('text');
    expect(pool.share(null)).toBeNull();
  });

  it('holds at most its bound of values; a forgotten value stays valid where it is used', () => {
    const pool = new ValuePool(3);
    const first = pool.share({ n: 0 });
    for (let i = 1; i < 10; i++) pool.share({ n: i });
    expect(pool.size).toBe(3);
    expect(first).toEqual({ n: 0 });
    expect(pool.share({ n: 0 })).not.toBe(first);
  });
});

describe('flatString', () => {
  it('is the same text', () => {
    let built = 'SELECT ';
    for (let i = 0; i < 20; i++) built += `$${i}, `;
    expect(flatString(built)).toBe(built);
    expect(flatString('')).toBe('');
    expect(flatString('é “quoted” \\ \n')).toBe('é “quoted” \\ \n');
  });
});
