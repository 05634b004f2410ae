import { storedReport } from '../fixtures.spec-helper';
import { StringPool } from './string-pool';

/** A copy of a report whose strings are distinct objects, as Postgres sends each row. */
function fresh(id: string) {
  const r = storedReport(id, ['sa', 'les'].join(''));
  return JSON.parse(JSON.stringify(r)) as typeof r;
}

describe('StringPool', () => {
  it('keeps one copy of repeated values and changes nothing a report says', () => {
    const pool = new StringPool();
    const a = fresh('a');
    const b = fresh('b');
    const pa = pool.report(a);
    const pb = pool.report(b);
    expect(pa).toEqual(a);
    expect(pb).toEqual(b);
    expect(pb.metadata.fields[0]).toBe(pa.metadata.fields[0]);
    // equal lists are one list (a report's metadata is never changed once read)
    expect(pb.metadata.fields).toBe(pa.metadata.fields);
    expect(pb.metadata.filters).toBe(pa.metadata.filters);
  });

  it('shares a list only with an equal one, members in order', () => {
    const pool = new StringPool();
    const a = fresh('a');
    const b = fresh('b');
    const extra = { name: 'm', type: 'integer' as const, description: 'max' };
    b.metadata.fields = [...b.metadata.fields, extra];
    const pa = pool.report(a);
    const pb = pool.report(b);
    expect(pb.metadata.fields).not.toBe(pa.metadata.fields);
    expect(pb.metadata.fields[0]).toBe(pa.metadata.fields[0]);
    expect(pb.metadata.fields.map((f) => f.name)).toEqual(['n', 'm']);
  });

  it('does not share fields that differ', () => {
    const pool = new StringPool();
    const a = fresh('a');
    const b = fresh('b');
    b.metadata.fields = [{ name: 'n', type: 'number', description: 'count' }];
    expect(pool.report(b).metadata.fields[0]).not.toBe(pool.report(a).metadata.fields[0]);
    expect(pool.report(b).metadata.fields[0]?.type).toBe('number');
  });
});
