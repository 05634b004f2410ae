import corpus from '../../../test/fixtures/sql-guard-corpus.json';
import { initSqlParser } from '../sql-lexer';
import { placeholderNames, SqlGuard } from '.';
import type { SqlGuardInput, SqlGuardRule, SqlGuardVerdict } from '.';

const whitelist = { defaultSchema: 'public', tables: ['orders', 'customers', 'order_items'] };
const guard = new SqlGuard();

interface CorpusCase {
  id: string;
  sql: string;
  verdict: 'allow' | 'reject';
  why: string;
}

/** The CLI-like mode: `$n` allowed, and the `:names` a query uses count as declared. */
function checkLikeCli(sql: string): SqlGuardVerdict {
  const declaredParams = placeholderNames(sql);
  return guard.check({ sql, whitelist, declaredParams, parameterStyle: 'positional' });
}

/** Named mode, as for report templates. */
function checkTemplate(sql: string, extra: Partial<SqlGuardInput> = {}): SqlGuardVerdict {
  return guard.check({ sql, whitelist, declaredParams: [], ...extra });
}

function errorsOf(verdict: SqlGuardVerdict): Array<{ rule: SqlGuardRule; message: string }> {
  return verdict.ok ? [] : verdict.errors;
}

// loading the parser (WebAssembly) can take seconds on a loaded machine
beforeAll(() => initSqlParser(), 30_000);

describe('SqlGuard on the attack corpus', () => {
  const cases = corpus as CorpusCase[];

  it.each(cases.filter((c) => c.verdict === 'reject').map((c) => [c.id, c.sql] as const))(
    '%s is refused',
    (_id, sql) => {
      expect(checkLikeCli(sql).ok).toBe(false);
    },
  );

  it.each(cases.filter((c) => c.verdict === 'allow').map((c) => [c.id, c.sql] as const))(
    '%s is allowed',
    (_id, sql) => {
      expect(checkLikeCli(sql)).toEqual({ ok: true });
    },
  );
});

/** [sql, rule, text the message must contain] */
type Refusal = [string, SqlGuardRule, string];

function expectRefused([sql, rule, text]: Refusal): void {
  const errors = errorsOf(checkLikeCli(sql));
  expect(errors).toContainEqual({ rule, message: expect.stringContaining(text) });
}

describe('statements', () => {
  it.each<Refusal>([
    ['SELECT 1; SELECT 2', 'single_statement', 'only one statement is allowed; found 2'],
    ['-- nothing here\n/* at all */', 'single_statement', 'no SQL statement found'],
    ['EXPLAIN ANALYZE SELECT * FROM orders', 'select_only', 'found EXPLAIN'],
    ['SHOW search_path', 'select_only', 'found SHOW'],
    ['PREPARE p AS SELECT 1', 'select_only', 'found PREPARE'],
    ["NOTIFY chan, 'x'", 'select_only', 'found NOTIFY'],
    ['LOCK TABLE orders', 'select_only', 'found LOCK'],
    ['CREATE TABLE t AS SELECT * FROM orders', 'select_only', 'found CREATE TABLE AS'],
    ['INSERT INTO orders (id) VALUES (1)', 'select_only', 'found INSERT'],
    [
      'WITH x AS (UPDATE orders SET total = 0 RETURNING id) SELECT * FROM x',
      'select_only',
      'data-modifying statement (UPDATE) inside WITH is not allowed',
    ],
    [
      'SELECT * FROM (WITH x AS (INSERT INTO orders (id) VALUES (1) RETURNING id) SELECT * FROM x) s',
      'select_only',
      'data-modifying statement (INSERT) inside WITH',
    ],
    ['SELECT (SELECT id FROM orders LIMIT 1 FOR SHARE) AS x', 'select_only', 'FOR UPDATE/SHARE'],
    ['SELECT id FROM orders FOR NO KEY UPDATE SKIP LOCKED', 'select_only', 'FOR UPDATE/SHARE'],
    ['SELECT id INTO TEMP t FROM orders', 'select_only', 'SELECT ... INTO creates a table'],
    ['SELECT 1 FROM orders; SELECT', 'single_statement', 'found 2'],
    ['RESET ALL', 'select_only', 'found SET/RESET'],
    ['SELECT 1; COMMIT', 'select_only', 'found a transaction command'],
  ])('refuses %j', (...refusal) => expectRefused(refusal));

  it.each([
    'SELECT id FROM orders;;',
    'SELECT id FROM orders; -- trailing comment',
    'SELECT id FROM orders UNION ALL SELECT id FROM customers ORDER BY 1',
    'SELECT id FROM orders INTERSECT SELECT order_id FROM order_items',
    "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(id, name)",
    'TABLE orders',
    'SELECT * FROM ONLY orders',
  ])('allows %j', (sql) => expect(checkLikeCli(sql)).toEqual({ ok: true }));
});

describe('relations and CTE scoping', () => {
  it.each<Refusal>([
    [
      'WITH a AS (SELECT 1), b AS (SELECT * FROM c), c AS (SELECT 1) SELECT * FROM b',
      'relation',
      'table "c" is not in the whitelist',
    ],
    ['SELECT * FROM (WITH x AS (SELECT 1) SELECT * FROM x) s, x', 'relation', 'table "x"'],
    ['WITH orders AS (SELECT * FROM pg_user) SELECT * FROM orders', 'relation', '"pg_user"'],
    ['WITH x AS (SELECT 1) SELECT * FROM public.x', 'relation', 'table "public.x"'],
    ['SELECT * FROM orders o JOIN pg_user u ON true', 'relation', '"pg_user"'],
    [
      'SELECT * FROM orders, LATERAL (SELECT * FROM pg_stat_activity) a',
      'relation',
      'pg_stat_activity',
    ],
    ['SELECT id FROM orders WHERE EXISTS (SELECT 1 FROM secrets)', 'relation', '"secrets"'],
    ['SELECT coalesce((SELECT 1 FROM secrets), 0)', 'relation', '"secrets"'],
    ['SELECT CASE WHEN true THEN (SELECT 1 FROM secrets) END', 'relation', '"secrets"'],
    ['SELECT id FROM orders ORDER BY (SELECT count(*) FROM secrets)', 'relation', '"secrets"'],
    ['SELECT * FROM pg_temp.t', 'relation', 'system schema pg_temp'],
    ['SELECT * FROM pg_toast.pg_toast_1', 'relation', 'system schema pg_toast'],
    ['SELECT * FROM otherdb.public.orders', 'relation', 'cross-database'],
    ['SELECT * FROM "Orders"', 'relation', 'did you mean public.orders'],
    ['SELECT * FROM orders TABLESAMPLE system (10)', 'construct', 'TABLESAMPLE'],
    ['VALUES ((SELECT rolname FROM pg_roles LIMIT 1))', 'relation', 'pg_roles'],
    ['SELECT 1 FROM U&"!0070g_roles" UESCAPE \'!\'', 'relation', 'table "pg_roles"'],
    ['SELECT * FROM orders WHERE id IN (TABLE pg_roles)', 'relation', 'pg_roles'],
  ])('refuses %j', (...refusal) => expectRefused(refusal));

  it.each([
    'WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10) SELECT * FROM t',
    'WITH RECURSIVE b AS (SELECT * FROM c), c AS (SELECT 1) SELECT * FROM b',
    'WITH a AS (SELECT id FROM orders), b AS (SELECT * FROM a) SELECT * FROM b',
    'WITH x AS (SELECT 1) SELECT * FROM (SELECT * FROM x) s WHERE EXISTS (SELECT 1 FROM x)',
    'WITH customers AS (SELECT * FROM orders) SELECT * FROM customers',
    'WITH x AS MATERIALIZED (SELECT id FROM orders) SELECT * FROM x',
    'SELECT * FROM Public.Orders o JOIN "customers" c ON c.id = o.customer_id',
    'SELECT o.id FROM orders o LEFT JOIN order_items i USING (order_id)',
  ])('allows %j', (sql) => expect(checkLikeCli(sql)).toEqual({ ok: true }));

  it('keeps quoted whitelist entries case-sensitive', () => {
    const quoted = { defaultSchema: 'public', tables: ['Orders', 'sales.Q1'] };
    const check = (sql: string) => guard.check({ sql, whitelist: quoted, declaredParams: [] }).ok;
    expect(check('SELECT * FROM "Orders"')).toBe(true);
    expect(check('SELECT * FROM orders')).toBe(false);
    expect(check('SELECT * FROM sales."Q1"')).toBe(true);
    expect(check('SELECT * FROM sales.q1')).toBe(false);
  });

  it('never allows system schemas, even when whitelisted', () => {
    const tables = ['pg_catalog.pg_roles', 'information_schema.tables', 'pg_roles'];
    const check = (sql: string) =>
      guard.check({ sql, whitelist: { defaultSchema: 'public', tables }, declaredParams: [] }).ok;
    expect(check('SELECT * FROM pg_catalog.pg_roles')).toBe(false);
    expect(check('SELECT * FROM information_schema.tables')).toBe(false);
    expect(check('SELECT * FROM pg_roles')).toBe(false);
  });
});

describe('functions, operators and casts', () => {
  it.each<Refusal>([
    [
      "SELECT current_setting('app.tenant_id')",
      'function',
      'function current_setting is not allowed',
    ],
    ['SELECT pg_catalog.pg_sleep(1)', 'function', 'function pg_catalog.pg_sleep'],
    ['SELECT public.lower(status) FROM orders', 'function', 'function public.lower'],
    ['SELECT "pg_sleep"(1)', 'function', 'pg_sleep'],
    ['SELECT U&"pg_sl\\0065ep"(1)', 'function', 'pg_sleep'],
    ['SELECT id FROM orders WHERE id = 1 OR pg_sleep(1) IS NULL', 'function', 'pg_sleep'],
    [
      'SELECT id FROM orders GROUP BY id HAVING count(pg_cancel_backend(1)) > 0',
      'function',
      'pg_cancel_backend',
    ],
    ["SELECT * FROM ROWS FROM (pg_ls_dir('.'))", 'function', 'pg_ls_dir'],
    ["SELECT xpath('/a', '<a/>')", 'function', 'xpath'],
    ['SELECT version()', 'function', 'version'],
    ["SELECT xmlelement(name a, 'x')", 'construct', 'XML functions'],
    ["SELECT 'a' OPERATOR(public.===) 'b'", 'function', 'operator public.==='],
    ["SELECT CAST('pg_authid' AS regclass)", 'cast', 'cast to type regclass'],
    ["SELECT 'pg_authid'::pg_catalog.regclass", 'cast', 'regclass'],
    ["SELECT 'postgres'::regrole::oid", 'cast', 'regrole'],
    ["SELECT ARRAY['pg_authid']::regclass[]", 'cast', 'regclass'],
    ["SELECT 'now()'::regprocedure", 'cast', 'regprocedure'],
    ["SELECT * FROM json_populate_record(NULL::pg_roles, '{}')", 'cast', 'cast to type pg_roles'],
    ["SELECT '1'::public.my_domain", 'cast', 'public.my_domain'],
  ])('refuses %j', (...refusal) => expectRefused(refusal));

  it.each([
    "SELECT date_trunc('month', created_at) AS m, sum(total) FROM orders GROUP BY 1 HAVING sum(total) > 0",
    'SELECT pg_catalog.lower(status), upper(status), initcap(status) FROM orders',
    'SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY total) FROM orders',
    "SELECT string_agg(DISTINCT status, ',' ORDER BY status), array_agg(id ORDER BY id) FROM orders",
    'SELECT round(avg(total)::numeric, 2), total::numeric(10, 2), CAST(id AS text) FROM orders',
    "SELECT '2024-01-01'::date, date '2024-01-01', NULL::text, '{}'::jsonb, id::bigint[] FROM orders",
    "SELECT created_at AT TIME ZONE 'UTC', extract(year FROM created_at) FROM orders",
    "SELECT substring(status FROM 1 FOR 3), trim(both ' ' FROM status), position('a' IN status) FROM orders",
    "SELECT id FROM orders WHERE status SIMILAR TO 'p%' AND status NOT ILIKE '%x%' AND status ~* '^p'",
    'SELECT greatest(total, 0), least(total, 100), nullif(total, 0), coalesce(total, 0) FROM orders',
    "SELECT CASE WHEN total > 100 THEN 'big' ELSE 'small' END FROM orders",
    'SELECT * FROM generate_series(1, 10) AS g(n), unnest(ARRAY[1, 2]) AS u(x)',
    "SELECT e->>'sku' FROM order_items i, LATERAL jsonb_array_elements(i.data->'items') AS e",
    "SELECT JSON_VALUE(data, '$.sku'), data IS JSON, json_build_object('id', id) FROM order_items",
    'SELECT id, rank() OVER w, lag(total) OVER w FROM orders WINDOW w AS (ORDER BY created_at)',
    'SELECT status, grouping(status), count(*) FROM orders GROUP BY ROLLUP (status)',
    'SELECT id FROM orders WHERE (id, total) > (1, 2) AND id = ANY (ARRAY[1, 2]) AND id IS NOT NULL',
    'SELECT now() - make_interval(days => 7), current_timestamp, localtimestamp, current_user',
    'SELECT status COLLATE "C" FROM orders ORDER BY total DESC NULLS FIRST FETCH FIRST 5 ROWS WITH TIES',
    "SELECT id FROM orders WHERE note LIKE 'a!%' ESCAPE '!' AND note NOT ILIKE 'b' ESCAPE '#'",
    "SELECT B'101', X'1F', 1.5e3, 'a' || 'b', -total, |/ 4.0, 2 ^ 3, 10 % 3 FROM orders",
  ])('allows %j', (sql) => expect(checkLikeCli(sql)).toEqual({ ok: true }));
});

describe('parameters', () => {
  it('accepts declared and identity placeholders in named mode', () => {
    const sql =
      'SELECT id FROM orders WHERE tenant_id = :tenant_id AND region = :region AND ' +
      'created_at >= :from::date AND owner = :claim_team';
    expect(checkTemplate(sql, { declaredParams: ['region', 'from'] })).toEqual({ ok: true });
  });

  it('refuses undeclared names, naming them', () => {
    const errors = errorsOf(
      checkTemplate('SELECT id FROM orders WHERE a = :foo', { declaredParams: [] }),
    );
    expect(errors).toEqual([
      { rule: 'parameters', message: expect.stringContaining(':foo is not a declared parameter') },
    ]);
  });

  it('refuses declared names that are never used, unless told not to', () => {
    const sql = 'SELECT id FROM orders WHERE status = :status';
    const declaredParams = ['status', 'region'];
    expect(errorsOf(checkTemplate(sql, { declaredParams }))).toEqual([
      { rule: 'parameters', message: 'declared filter :region is never used' },
    ]);
    expect(checkTemplate(sql, { declaredParams, requireAllDeclaredUsed: false })).toEqual({
      ok: true,
    });
  });

  it('refuses hand-written $n in named mode only', () => {
    const sql = 'SELECT id FROM orders WHERE id = $1';
    expect(errorsOf(checkTemplate(sql))).toEqual([
      {
        rule: 'parameters',
        message: 'use :name placeholders, not positional parameters (found $1)',
      },
    ]);
    expect(checkTemplate(sql, { parameterStyle: 'positional' })).toEqual({ ok: true });
  });

  it('does not take strings, comments or casts for placeholders', () => {
    const sql = "SELECT id::text FROM orders WHERE note = ':nope' /* :nope */ -- :nope";
    expect(checkTemplate(sql)).toEqual({ ok: true });
  });

  it('refuses a placeholder glued to an identifier (Postgres would read foo$1)', () => {
    const errors = errorsOf(
      checkTemplate('SELECT foo:bar FROM orders', { declaredParams: ['bar'] }),
    );
    expect(errors.map((e) => e.rule)).toContain('differential');
  });

  it('still checks placeholders in positional mode', () => {
    const verdict = checkTemplate('SELECT id FROM orders WHERE id = $1 AND a = :b', {
      parameterStyle: 'positional',
    });
    expect(errorsOf(verdict)).toEqual([
      { rule: 'parameters', message: expect.stringContaining(':b is not a declared parameter') },
    ]);
  });
});

describe('reading the text as Postgres does', () => {
  it('reports Postgres parse errors', () => {
    expect(errorsOf(checkLikeCli('SELECT FROM WHERE'))).toEqual([
      { rule: 'parse', message: expect.stringContaining('syntax error') },
    ]);
    expect(errorsOf(checkLikeCli("SELECT 'unterminated"))).toEqual([
      { rule: 'parse', message: expect.stringContaining('unterminated') },
    ]);
  });

  it.each([
    "SELECT 'Zürich' AS city, '日本語 🚀' AS label, U&'d\\0061t\\+000061' AS u FROM orders",
    "SELECT id FROM orders WHERE note = E'O\\'Reilly; DROP TABLE orders --'",
    "SELECT id FROM orders WHERE note = $tag$ it's $$ ; DELETE $tag$",
    "SELECT id AS \"select * from pg_roles\" FROM orders WHERE note = 'a''; DELETE'",
  ])('allows text that only looks dangerous: %j', (sql) => {
    expect(checkLikeCli(sql)).toEqual({ ok: true });
  });

  it('sees the sub-select hidden behind a backslash (standard_conforming_strings)', () => {
    const sql = "SELECT 'x\\' AS a, (SELECT rolname FROM pg_authid) AS b --'";
    expect(errorsOf(checkLikeCli(sql))).toContainEqual({
      rule: 'relation',
      message: expect.stringContaining('table "pg_authid" is not in the whitelist'),
    });
  });

  it.each([1000, 5000, 20000])('returns a verdict, never throws, for %i-deep expressions', (n) => {
    // where the limit lies depends on the stack size; past it the query is refused
    const verdict = checkLikeCli(`SELECT 1${' + 1'.repeat(n)}`);
    if (!verdict.ok) expect(verdict.errors.map((e) => e.rule)).toEqual([expect.any(String)]);
    expect(checkLikeCli(`SELECT ${'lower('.repeat(n)}'a'${')'.repeat(n)}`)).toBeDefined();
  });

  it('names the offending table and the whitelist', () => {
    expect(errorsOf(checkLikeCli('SELECT * FROM pg_roles'))).toEqual([
      {
        rule: 'relation',
        message:
          'table "pg_roles" is not in the whitelist (allowed: public.orders, public.customers, ' +
          'public.order_items); pg_* names resolve to the system catalogs',
      },
    ]);
  });
});
