import { CHART_FIELDS_META_KEY, CHART_META_KEY, CHART_VIEW_URI } from '../model/chart-hint';
import type { JsonSchema } from './json-schema';
import type { TemplateError } from '../errors';
import { formatTool } from './formats';
import type { ReportFilter, ReportMetadata } from '../model/report';
import { ReportTool } from './report-tool';
import { initSqlParser } from '../sql/sql-lexer';

// loading the parser (WebAssembly) can take seconds on a loaded machine
beforeAll(() => initSqlParser(), 30_000);

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
    id: 'sales_by_region',
    name: 'Sales by region',
    description: 'Total sales per region.',
    sqlTemplate: `SELECT region, sum(total) AS total_amount FROM orders
      WHERE (:region IS NULL OR region = :region)
        AND (:order_date_start IS NULL OR d >= :order_date_start) AND (:order_date_end IS NULL OR d <= :order_date_end)
      GROUP BY region`,
    category: 'sales',
    version: 3,
    filters: [
      filter({
        name: 'region',
        type: 'enum',
        enumValues: ['east', 'west'],
        description: 'sales region',
      }),
      filter({ name: 'order_date', type: 'date_range' }),
    ],
    fields: [
      { name: 'region', type: 'string', description: '' },
      { name: 'total_amount', type: 'number', description: '' },
    ],
    ...overrides,
  };
}

describe('ReportTool definition', () => {
  it('names the tool query_report_<id> and builds a closed JSON Schema with paging', () => {
    const tool = new ReportTool(report());
    expect(tool.definition.name).toBe('query_report_sales_by_region');
    expect(tool.definition.inputSchema).toEqual({
      type: 'object',
      properties: {
        region: { type: 'string', enum: ['east', 'west'], description: 'sales region' },
        order_date: expect.objectContaining({
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
        }),
        page: expect.objectContaining({ type: 'integer', minimum: 1, default: 1 }),
        page_size: expect.objectContaining({
          type: 'integer',
          minimum: 1,
          maximum: 100,
          default: 20,
        }),
      },
      additionalProperties: false,
    });
  });

  it('emits one JSON Schema shape per filter type', () => {
    const all = new ReportTool(
      report({
        sqlTemplate:
          'SELECT 1 WHERE :s::text IS NOT NULL AND :i > 0 AND :n > 0 AND :d IS NULL AND :b AND :l IS NULL AND :p_min < :p_max',
        filters: [
          filter({ name: 's', type: 'string' }),
          filter({ name: 'i', type: 'integer', required: true }),
          filter({ name: 'n', type: 'number' }),
          filter({ name: 'd', type: 'date' }),
          filter({ name: 'b', type: 'boolean', defaultValue: true }),
          filter({ name: 'l', type: 'string_list' }),
          filter({ name: 'p', type: 'number_range' }),
        ],
      }),
    );
    const { properties, required } = all.definition.inputSchema;
    expect(properties?.s).toMatchObject({ type: 'string', maxLength: 200 });
    expect(properties?.i).toEqual({ type: 'integer' });
    expect(properties?.n).toEqual({ type: 'number' });
    expect(properties?.d).toMatchObject({ type: 'string', format: 'date' });
    expect(properties?.b).toEqual({ type: 'boolean', default: true });
    expect(properties?.l).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(properties?.p).toMatchObject({
      type: 'object',
      properties: { min: { type: 'number' }, max: { type: 'number' } },
    });
    expect(required).toEqual(['i']);
  });

  it('keeps the description within 1024 characters, business text first', () => {
    const long = new ReportTool(report({ description: 'word '.repeat(400) }));
    expect(long.definition.description.length).toBeLessThanOrEqual(1024);
    expect(long.definition.description.startsWith('word word')).toBe(true);
    const short = new ReportTool(report());
    expect(short.definition.description).toBe(
      'Total sales per region. Filters: region (one of east/west, optional), order_date (date range, optional). Returns: region (string), total_amount (number).',
    );
  });

  it.each([
    ['Sales', 'must match'],
    ['a'.repeat(52), 'too long'],
  ])('refuses report id %p (%s)', (id, message) => {
    expect(() => new ReportTool(report({ id }))).toThrow(message);
  });

  it('accepts the longest id that keeps the tool name within 64 characters', () => {
    expect(new ReportTool(report({ id: 'a'.repeat(51) })).definition.name).toHaveLength(64);
  });

  it('refuses reserved filter names and enum filters without values', () => {
    const err = (() => {
      try {
        new ReportTool(
          report({
            filters: [
              filter({ name: 'page', type: 'integer' }),
              filter({ name: 'tenant_id', type: 'string' }),
              filter({ name: 'x', type: 'enum' }),
            ],
          }),
        );
      } catch (e) {
        return e as TemplateError;
      }
      throw new Error('expected a TemplateError');
    })();
    expect(err.problems.map((p) => p.message)).toEqual([
      'filter name "page" is reserved',
      'filter name "tenant_id" is reserved',
      'enum filter "x" needs enum_values',
    ]);
  });
});

describe('formats', () => {
  it('wraps the same schema for OpenAI, Anthropic and MCP', () => {
    const tool = new ReportTool(report()).definition;
    expect(formatTool(tool, 'openai')).toEqual({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    });
    expect(formatTool(tool, 'anthropic')).toEqual({
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema,
    });
    expect(formatTool(tool, 'mcp')).toEqual({
      name: tool.name,
      title: 'Sales by region',
      description: tool.description,
      inputSchema: expect.objectContaining({ type: 'object' }),
      outputSchema: expect.objectContaining({
        required: ['columns', 'rows', 'page', 'page_size', 'has_more'],
      }),
      // the MCP Apps chart View and the chart it draws (#33)
      _meta: {
        ui: { resourceUri: CHART_VIEW_URI },
        'ui/resourceUri': CHART_VIEW_URI,
        [CHART_META_KEY]: { type: 'bar', x: 'region', y: ['total_amount'] },
        // the View titles its axes with the fields' descriptions (#40)
        [CHART_FIELDS_META_KEY]: [
          { name: 'region', description: '' },
          { name: 'total_amount', description: '' },
        ],
      },
      annotations: {
        title: 'Sales by region',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
      },
    });
    // MCP: an optional argument may be null ("not given"), a required one may not
    const mcpInput = (formatTool(tool, 'mcp') as { inputSchema: JsonSchema }).inputSchema;
    const required = new Set(tool.inputSchema.required ?? []);
    for (const [name, property] of Object.entries(mcpInput.properties ?? {})) {
      const original = tool.inputSchema.properties![name];
      if (required.has(name)) expect(property).toEqual(original);
      else expect(JSON.stringify(property)).toContain('"null"');
    }
    expect((mcpInput.properties as Record<string, { type?: unknown }>).page_size.type).toEqual([
      'integer',
      'null',
    ]);
    // rows typed from the declared fields, every value nullable
    expect((tool.outputSchema?.properties?.rows as { items: unknown }).items).toEqual({
      type: 'object',
      properties: {
        region: { type: ['string', 'null'] },
        total_amount: { type: ['number', 'null'] },
      },
    });
  });
});

describe('arguments and parameter values', () => {
  let tool: ReportTool;
  beforeAll(() => {
    tool = new ReportTool(report());
  });
  const identity = { tenantId: 'acme', userId: 'alice', claims: {} };

  it('validates, fills paging defaults and binds values by position', () => {
    const checked = tool.arguments.check({ region: 'east', order_date: { start: '2026-01-01' } });
    if (!checked.ok) throw new Error(checked.message);
    expect(checked).toMatchObject({ page: 1, pageSize: 20 });
    expect(tool.bound.parameterNames).toEqual(['region', 'order_date_start', 'order_date_end']);
    expect(tool.parameterValues(checked.args, identity)).toEqual(['east', '2026-01-01', null]);
  });

  it.each([
    [{ region: 'e' }, 'region must be one of east, west; got "e"'],
    [
      { order_date: { start: '2026-02-30' } },
      'order_date.start must be a date in YYYY-MM-DD format; got "2026-02-30"',
    ],
    [
      { order_date: { start: '2026-03-01', end: '2026-01-01' } },
      'order_date.start must not be after order_date.end; got 2026-03-01 and 2026-01-01',
    ],
    [{ order_date: {} }, 'order_date must set at least one bound'],
    [{ page: 0 }, 'page must be >= 1; got 0'],
    [{ page_size: '10' }, 'page_size must be an integer; got "10"'],
    [
      { colour: 'red' },
      'unknown argument "colour"; allowed arguments: region, order_date, page, page_size',
    ],
    [
      { tenant_id: 'globex' },
      '"tenant_id" is bound to your identity and cannot be passed as an argument; remove it',
    ],
    [
      { User_ID: 'bob' },
      '"User_ID" is bound to your identity and cannot be passed as an argument; remove it',
    ],
    [
      { ｔｅｎａｎｔ_ｉｄ: 'globex' },
      '"ｔｅｎａｎｔ_ｉｄ" is bound to your identity and cannot be passed as an argument; remove it',
    ],
    [
      { claim_region: 'east' },
      '"claim_region" is bound to your identity and cannot be passed as an argument; remove it',
    ],
  ])('refuses %j with a message a model can act on', (args, message) => {
    expect(tool.arguments.check(args)).toEqual({ ok: false, message });
  });

  it('refuses a "__proto__" argument like any unknown one (JSON.parse makes it an own key)', () => {
    const args = JSON.parse('{"region":"east","__proto__":{"page_size":1}}') as unknown;
    expect(tool.arguments.check(args)).toEqual({
      ok: false,
      message:
        'unknown argument "__proto__"; allowed arguments: region, order_date, page, page_size',
    });
  });

  it("leaves the caller's arguments as they were (nulls dropped and defaults filled on a copy)", () => {
    const input = { region: null, order_date: { start: '2026-01-01', end: null } };
    const before = JSON.stringify(input);
    const checked = tool.arguments.check(input);
    if (!checked.ok) throw new Error(checked.message);
    expect(checked.args).toEqual({ order_date: { start: '2026-01-01' }, page: 1, page_size: 20 });
    expect(JSON.stringify(input)).toBe(before);
  });

  it('fills identity parameters from the token only', () => {
    const rep = new ReportTool(
      report({ sqlTemplate: 'SELECT 1 WHERE r = :claim_region AND u = :user_id', filters: [] }),
    );
    expect(rep.isBindableFor(identity)).toBe(false);
    const rita = { tenantId: 'acme', userId: 'rita', claims: { region: 'west' } };
    expect(rep.isBindableFor(rita)).toBe(true);
    expect(rep.parameterValues({}, rita)).toEqual(['west', 'rita']);
  });
});

describe('what a report tool keeps (issue 17: per report only what serving needs)', () => {
  it('renders its bound SQL at the first call, not when listed', () => {
    const tool = new ReportTool(report());
    expect(JSON.stringify(tool)).not.toContain('$1');
    expect(tool.bound.text).toContain('$1');
    expect(tool.bound).toBe(tool.bound);
    expect(tool.bound.parameterNames).toEqual(['region', 'order_date_start', 'order_date_end']);
  });

  it('refuses an undeclared placeholder when built, as before', () => {
    const bad = report({ sqlTemplate: 'SELECT 1 FROM orders WHERE region = :nope' });
    expect(() => new ReportTool(bad)).toThrow();
  });

  it('shares its schemas with every tool of equal filters and fields, and validates with them', () => {
    const a = new ReportTool(report());
    const b = new ReportTool(report({ id: 'other', version: 1 }));
    expect(b.definition.inputSchema).toBe(a.definition.inputSchema);
    expect(b.definition.outputSchema).toBe(a.definition.outputSchema);
    expect(Object.isFrozen(a.definition.inputSchema)).toBe(true);
    for (const tool of [a, b]) {
      expect(tool.arguments.check({ region: 'north' })).toMatchObject({ ok: false });
      expect(tool.arguments.check({ region: 'east' })).toMatchObject({ ok: true, page: 1 });
    }
  });
});
