import { offendingPart } from './offending-part';

describe('offendingPart', () => {
  it('points at the statement the guard refused, not at the allowed word in the message', () => {
    const sql = 'DELETE FROM orders';
    expect(offendingPart(sql, 'only SELECT statements are allowed; found DELETE')).toEqual({
      text: 'DELETE',
      start: 0,
      end: 6,
    });
  });

  it('finds a table, a function and an undeclared parameter', () => {
    const sql = 'SELECT rolname FROM pg_roles WHERE x = :foo AND set_config(1)';
    expect(offendingPart(sql, 'relation pg_catalog.pg_roles is not in the whitelist')?.text).toBe(
      'pg_roles',
    );
    expect(offendingPart(sql, ':foo is not a declared parameter')).toEqual({
      text: ':foo',
      start: 39,
      end: 43,
    });
    expect(offendingPart(sql, 'function set_config is not allowed')?.start).toBe(48);
  });

  it('is case-insensitive, respects word boundaries and returns undefined when nothing matches', () => {
    expect(
      offendingPart('select * from my_orders, orders', 'table "orders" is not allowed'),
    ).toEqual({
      text: 'orders',
      start: 25,
      end: 31,
    });
    expect(offendingPart('SELECT 1', 'no SQL statement found')).toBeUndefined();
    expect(offendingPart('', 'only one statement is allowed; found 2')).toBeUndefined();
  });
});
