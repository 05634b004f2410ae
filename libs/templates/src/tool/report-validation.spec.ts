import type { ReportFilter, ReportMetadata } from '../model/report';
import { reportProblems } from './report-validation';

const filter = (f: Partial<ReportFilter> & Pick<ReportFilter, 'name' | 'type'>): ReportFilter => ({
  description: '',
  required: false,
  enumValues: null,
  defaultValue: null,
  ...f,
});

function report(overrides: Partial<ReportMetadata> = {}): ReportMetadata {
  return {
    tenantId: 'acme',
    id: 'orders_by_day',
    name: 'Orders by day',
    description: 'Orders per day.',
    sqlTemplate: 'SELECT d, count(*) AS n FROM orders GROUP BY d',
    category: 'sales',
    version: 1,
    filters: [],
    fields: [
      { name: 'd', type: 'date', description: '' },
      { name: 'n', type: 'integer', description: '' },
    ],
    ...overrides,
  };
}

const messages = (r: ReportMetadata) => reportProblems(r).map((p) => `${p.rule}: ${p.message}`);

describe('reportProblems: inputs that used to be saved and then fail (hardening #28 item 6)', () => {
  it('accepts a clean report', () => {
    expect(messages(report())).toEqual([]);
  });

  it('refuses two fields with one name', () => {
    expect(
      messages(
        report({
          fields: [
            { name: 'n', type: 'integer', description: '' },
            { name: 'n', type: 'string', description: '' },
          ],
        }),
      ),
    ).toEqual(['fields: field "n" is declared twice']);
  });

  it.each([
    ['name', { name: 'Orders\u0000' }, 'name'],
    ['description', { description: 'a\u0000b' }, 'description'],
    ['category', { category: '\u0000' }, 'category'],
    [
      'a filter description',
      { filters: [filter({ name: 'x', type: 'string', description: '\u0000' })] },
      'filters.0',
    ],
    [
      'a field description',
      { fields: [{ name: 'n', type: 'integer' as const, description: 'x\u0000' }] },
      'fields.0',
    ],
    [
      'an enum value',
      { filters: [filter({ name: 'x', type: 'enum', enumValues: ['a\u0000'] })] },
      'filters.0',
    ],
  ])('names the field of a NUL character in %s', (_what, overrides, path) => {
    expect(messages(report(overrides as Partial<ReportMetadata>))).toContain(
      `${path.split('.')[0]}: ${path} contains a NUL character (\\u0000), which Postgres text cannot hold`,
    );
  });

  it('does not mistake the text \\u0000 (a backslash and five characters) for a NUL', () => {
    expect(messages(report({ description: 'escape it as \\u0000 in JSON' }))).toEqual([]);
  });

  it.each([
    ['integer', { a: 1 }, 'x must be an integer; got {"a":1}'],
    ['integer', 1e308, 'not an exact integer (at most 2^53 - 1): 1e+308'],
    ['integer', 2.5, 'x must be an integer; got 2.5'],
    ['number', 'ten', 'x must be a number; got "ten"'],
    ['boolean', 'yes', 'x must be a boolean; got "yes"'],
    ['date', '2026-13-45', 'x must be a date in YYYY-MM-DD format; got "2026-13-45"'],
    ['string', '', 'x must NOT have fewer than 1 characters; got ""'],
    ['string_list', ['a', 1], 'x.1 must be a string; got 1'],
    ['date_range', { start: 'soon' }, 'x.start must be a date in YYYY-MM-DD format; got "soon"'],
    ['number_range', { min: 3, max: 1 }, 'x.min must not be greater than x.max; got 3 and 1'],
  ] as const)('refuses a %s filter default of %j, naming the filter', (type, value, says) => {
    const problems = messages(
      report({
        filters: [filter({ name: 'x', type: type as ReportFilter['type'], defaultValue: value })],
      }),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^filters: filter "x" has a default/);
    expect(problems[0]).toContain(says);
  });

  it('refuses an enum default outside its values and keeps valid defaults of every type', () => {
    expect(
      messages(
        report({
          filters: [filter({ name: 'x', type: 'enum', enumValues: ['a'], defaultValue: 'b' })],
        }),
      ),
    ).toEqual([
      'filters: filter "x" has a default its own type refuses: x must be one of a; got "b"',
    ]);
    const valid: Array<[ReportFilter['type'], unknown]> = [
      ['integer', 9007199254740991],
      ['number', 1.5],
      ['boolean', false],
      ['date', '2026-01-31'],
      ['string', 'north'],
      ['string_list', ['a', 'b']],
      ['date_range', { start: '2026-01-01' }],
      ['number_range', { min: 1, max: 2 }],
    ];
    for (const [type, value] of valid)
      expect(
        messages(report({ filters: [filter({ name: 'x', type, defaultValue: value })] })),
      ).toEqual([]);
  });
});
