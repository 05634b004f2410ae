import { initSqlParser } from '../sql-lexer';
import { SqlGuard } from '.';
import type { SqlGuardVerdict } from '.';

const whitelist = { defaultSchema: 'public', tables: ['orders'] };
const guard = new SqlGuard();

function check(sql: string, declaredParams: string[] = []): SqlGuardVerdict {
  return guard.check({ sql, whitelist, declaredParams });
}

// loading the parser (WebAssembly) can take seconds on a loaded machine
beforeAll(() => initSqlParser(), 30_000);

describe('SqlGuard amplifier rule', () => {
  it.each([
    ["SELECT repeat('x', 400000000)", 'repeat', '10,000'],
    ["SELECT repeat('x', '400000000')", 'repeat', '10,000'],
    ["SELECT repeat('x', 10001)", 'repeat', '10,000'],
    ['SELECT repeat(status, id) FROM orders', 'repeat', '10,000'],
    ["SELECT repeat('x', :n)", 'repeat', '10,000'],
    ["SELECT lpad('x', 2000000000)", 'lpad', '10,000'],
    ["SELECT pg_catalog.rpad('x', 20000, 'y')", 'rpad', '10,000'],
    ["SELECT repeat(repeat('x', 10000), 10000)", 'repeat', 'may not call repeat again'],
    ['SELECT * FROM generate_series(1, 100000000)', 'generate_series', '1,000,000'],
    ['SELECT * FROM generate_series(1, id) AS g(n), orders', 'generate_series', '1,000,000'],
    ['SELECT generate_series(0, 10000000, 5)', 'generate_series', '1,000,000'],
    ['SELECT generate_series(1, 10, 0)', 'generate_series', '1,000,000'],
    [
      "SELECT generate_series('2000-01-01'::timestamp, '2026-01-01'::timestamp, '1 second'::interval)",
      'generate_series',
      '1,000,000',
    ],
    ['SELECT array_fill(0, ARRAY[100000000])', 'array_fill', '10,000'],
    ['SELECT array_fill(0, ARRAY[1000, 1000])', 'array_fill', '10,000'],
    ['SELECT array_fill(0, ARRAY[id]) FROM orders', 'array_fill', '10,000'],
  ])('refuses %j naming %s and its bound', (sql, fn, bound) => {
    const params = sql.includes(':n') ? ['n'] : [];
    const verdict = check(sql, params);
    expect(verdict.ok).toBe(false);
    const amplifier = verdict.ok ? [] : verdict.errors.filter((e) => e.rule === 'amplifier');
    expect(amplifier).toEqual([
      { rule: 'amplifier', message: expect.stringMatching(new RegExp(`^${fn}: .*${bound}`)) },
    ]);
  });

  it.each([
    "SELECT repeat('-', 10000)",
    "SELECT lpad(status, 12, ' ') FROM orders",
    "SELECT rpad(status, '12') FROM orders",
    'SELECT * FROM generate_series(1, 1000000) AS g(n)',
    'SELECT generate_series(1, 100, 10)',
    "SELECT d FROM generate_series(date '2025-01-01', date '2025-12-31', interval '1 month') AS d",
    "SELECT generate_series('2025-01-01'::date, '2025-12-31'::date, '1 day'::interval)",
    'SELECT array_fill(0, ARRAY[100, 100])',
    'SELECT length(repeat(status, 3)) FROM orders',
  ])('allows %j', (sql) => {
    expect(check(sql)).toEqual({ ok: true });
  });
});
