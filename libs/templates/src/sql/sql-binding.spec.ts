import { TemplateError } from '../errors';
import { bindTemplate, declaredParameters, findPlaceholders } from './sql-binding';
import { initSqlParser } from './sql-lexer';
import { pagedQuery } from './paging';

// loading the parser (WebAssembly) can take seconds on a loaded machine
beforeAll(() => initSqlParser(), 30_000);

const declared = new Map([
  ['region', 'text'],
  ['since', 'date'],
]);

describe('findPlaceholders', () => {
  it('finds :names in live SQL only', () => {
    const sql = `SELECT a::int, ':x', $$ :y $$, E'\\':z', "col:w" /* :v */ -- :u
      FROM t WHERE r = :region AND d >= :since`;
    expect(findPlaceholders(sql).map((p) => p.name)).toEqual(['region', 'since']);
  });

  it('reports character offsets even after multi-byte text', () => {
    const sql = "SELECT 'é€😀' AS s WHERE r = :region";
    const [p] = findPlaceholders(sql);
    expect(sql.slice(p.start, p.end)).toBe(':region');
  });
});

describe('bindTemplate', () => {
  it('rewrites :names to typed positional parameters, reusing a position for a repeated name', () => {
    const bound = bindTemplate(
      'SELECT * FROM o WHERE (:region IS NULL OR o.region = :region) AND o.d >= :since',
      declared,
    );
    expect(bound.text).toBe(
      'SELECT * FROM o WHERE ($1::text IS NULL OR o.region = $1::text) AND o.d >= $2::date',
    );
    expect(bound.parameterNames).toEqual(['region', 'since']);
  });

  it('binds identity parameters without declaring them', () => {
    const bound = bindTemplate(
      'SELECT 1 WHERE t = :tenant_id AND u = :user_id AND r = :claim_region',
      new Map(),
    );
    expect(bound.parameterNames).toEqual(['tenant_id', 'user_id', 'claim_region']);
    expect(bound.text).toContain('$3::text');
  });

  it('refuses unknown names and hand-written positional parameters', () => {
    expect(() => bindTemplate('SELECT 1 WHERE a = :nope', declared)).toThrow(
      ':nope is not a declared filter parameter (declared: region, since)',
    );
    expect(() => bindTemplate('SELECT 1 WHERE a = $1', declared)).toThrow(TemplateError);
  });

  it('never puts a value into the SQL text', () => {
    const bound = bindTemplate("SELECT ':region' AS literal, :region AS value", declared);
    expect(bound.text).toBe("SELECT ':region' AS literal, $1::text AS value");
  });
});

describe('declaredParameters', () => {
  it('gives ranges two parameters each', () => {
    const params = declaredParameters([
      {
        name: 'order_date',
        type: 'date_range',
        description: '',
        required: false,
        enumValues: null,
        defaultValue: null,
      },
      {
        name: 'price',
        type: 'number_range',
        description: '',
        required: false,
        enumValues: null,
        defaultValue: null,
      },
      {
        name: 'tags',
        type: 'string_list',
        description: '',
        required: false,
        enumValues: null,
        defaultValue: null,
      },
    ]);
    expect([...params]).toEqual([
      ['order_date_start', 'date'],
      ['order_date_end', 'date'],
      ['price_min', 'numeric'],
      ['price_max', 'numeric'],
      ['tags', 'text[]'],
    ]);
  });
});

describe('pagedQuery', () => {
  it('wraps the template, drops a trailing semicolon and survives a trailing comment', () => {
    const paged = pagedQuery({ text: 'SELECT 1 AS a; -- done', parameterNames: ['x'] });
    expect(paged.text).toBe(
      'SELECT * FROM (\nSELECT 1 AS a -- done\n) AS report_rows LIMIT $2 OFFSET $3',
    );
    expect(paged.pageValues(3, 20)).toEqual([21, 40]);
  });
});
