import { namedStatement, PreparedStatements } from './prepared-statements';

const statement = (n: number) => namedStatement('acme', 'tenant_acme', `r${n}`, 1, `SELECT ${n}`);

describe('named statements', () => {
  it('names a statement per tenant, schema, report, version and SQL, within NAMEDATALEN', () => {
    const base = namedStatement('acme', 'tenant_acme', 'lookup', 1, 'SELECT 1');
    const others = [
      namedStatement('globex', 'tenant_acme', 'lookup', 1, 'SELECT 1'),
      namedStatement('acme', 'tenant_globex', 'lookup', 1, 'SELECT 1'),
      namedStatement('acme', 'tenant_acme', 'lookup2', 1, 'SELECT 1'),
      namedStatement('acme', 'tenant_acme', 'lookup', 2, 'SELECT 1'),
      namedStatement('acme', 'tenant_acme', 'lookup', 1, 'SELECT 2'),
      // the separator keeps parts from running into each other
      namedStatement('acm', 'etenant_acme', 'lookup', 1, 'SELECT 1'),
    ];
    expect(base.name).toMatch(/^gw_r_[0-9a-f]{32}$/);
    expect(Buffer.byteLength(base.name)).toBeLessThan(64);
    expect(new Set([base, ...others].map((s) => s.name)).size).toBe(others.length + 1);
    expect(namedStatement('acme', 'tenant_acme', 'lookup', 1, 'SELECT 1')).toEqual(base);
  });

  it('counts a name as prepared only once parsed, and only for its own key', () => {
    const statements = new PreparedStatements(2);
    expect(statements.isPrepared(statement(1))).toBe(false);
    expect(statements.mayParse(statement(1))).toBe(true);
    statements.parsed(statement(1));
    expect(statements.isPrepared(statement(1))).toBe(true);
    expect(statements.mayParse(statement(1))).toBe(false);
    const impostor = { name: statement(1).name, key: 'other SQL' };
    expect(statements.isPrepared(impostor)).toBe(false);
    expect(statements.mayParse(impostor)).toBe(false);
  });

  it('evicts the least recently used past the limit and closes it until confirmed', () => {
    const statements = new PreparedStatements(2);
    statements.parsed(statement(1));
    statements.parsed(statement(2));
    expect(statements.isPrepared(statement(1))).toBe(true); // 1 is now the most recent
    statements.parsed(statement(3));
    expect(statements.size).toBe(2);
    expect(statements.closing()).toEqual([statement(2).name]);
    expect(statements.isPrepared(statement(2))).toBe(false);
    expect(statements.closing()).toEqual([statement(2).name]); // until the server confirms
    statements.closed(statement(2).name);
    expect(statements.closing()).toEqual([]);
    expect(statements.isPrepared(statement(1))).toBe(true);
    expect(statements.isPrepared(statement(3))).toBe(true);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new PreparedStatements(0)).toThrow(/positive integer/);
  });
});
