import { ArgumentValidator } from './arguments';
import { formatTool } from './formats';
import { requestedFormat } from './formats';
import { argumentsSchema } from './json-schema';
import type { ReportFilter } from '../model/report';

const filter = (f: Partial<ReportFilter> & Pick<ReportFilter, 'name' | 'type'>): ReportFilter => ({
  description: '',
  required: false,
  enumValues: null,
  defaultValue: null,
  ...f,
});

const FILTERS: ReportFilter[] = [
  filter({ name: 'region', type: 'enum', enumValues: ['east', 'west'], description: 'region' }),
  filter({ name: 'order_date', type: 'date_range' }),
  filter({ name: 'price', type: 'number_range' }),
  filter({ name: 'segments', type: 'string_list' }),
  filter({ name: 'name_contains', type: 'string' }),
  filter({ name: 'order_id', type: 'integer', required: true }),
  filter({ name: 'year', type: 'integer', defaultValue: 2025 }),
];

const tool = {
  name: 'query_report_x',
  description: 'X',
  inputSchema: argumentsSchema(FILTERS),
  readOnly: true,
};

type Schema = Record<string, unknown>;

function walk(schema: Schema, visit: (s: Schema) => void): void {
  visit(schema);
  for (const p of Object.values((schema.properties ?? {}) as Record<string, Schema>))
    walk(p, visit);
  if (schema.items) walk(schema.items as Schema, visit);
  for (const s of (schema.anyOf ?? []) as Schema[]) walk(s, visit);
}

describe('format=openai&strict=true', () => {
  const formatted = formatTool(tool, 'openai-strict') as {
    function: { parameters: Schema; strict: boolean };
  };
  const schema = formatted.function.parameters;

  it('is strict: every property required, every object closed, no undocumented keyword', () => {
    expect(formatted.function.strict).toBe(true);
    walk(schema, (s) => {
      for (const key of ['minLength', 'maxLength', 'minProperties', 'default'])
        expect(s).not.toHaveProperty(key);
      if (s.type === 'object') {
        expect(s.additionalProperties).toBe(false);
        expect(s.required).toEqual(Object.keys(s.properties as object));
      }
    });
  });

  it('makes optional filters nullable and keeps required ones as they are', () => {
    const props = schema.properties as Record<string, Schema>;
    expect(props.order_id.type).toBe('integer');
    expect(props.region).toMatchObject({
      type: ['string', 'null'],
      enum: ['east', 'west', null],
    });
    expect(props.order_date.anyOf).toEqual([
      expect.objectContaining({ type: 'object', additionalProperties: false }),
      { type: 'null' },
    ]);
    // what strict mode cannot say moves into the description
    expect(props.page_size).toMatchObject({ type: ['integer', 'null'], maximum: 100 });
    expect(props.page_size.description).toContain('default 20');
    expect(props.year.description).toContain('default 2025');
  });

  it('the gateway accepts what a strict model sends: every key, null for the unused ones', () => {
    const validator = new ArgumentValidator(tool.inputSchema, FILTERS);
    const check = validator.check({
      region: null,
      order_date: { start: '2026-01-01', end: null },
      price: { min: null, max: null },
      segments: null,
      name_contains: null,
      order_id: 7,
      year: null,
      page: null,
      page_size: null,
    });
    expect(check).toEqual({
      ok: true,
      args: {
        order_date: { start: '2026-01-01' },
        order_id: 7,
        year: 2025,
        page: 1,
        page_size: 20,
      },
      page: 1,
      pageSize: 20,
    });
  });

  it('a null for a required argument is still refused', () => {
    const validator = new ArgumentValidator(tool.inputSchema, FILTERS);
    expect(validator.check({ order_id: null })).toEqual({
      ok: false,
      message: 'order_id must be an integer; got null',
    });
  });
});

describe('other provider formats', () => {
  it('anthropic strict drops numeric and length constraints and closes every object', () => {
    const formatted = formatTool(tool, 'anthropic-strict') as {
      input_schema: Schema;
      strict: boolean;
    };
    expect(formatted.strict).toBe(true);
    walk(formatted.input_schema, (s) => {
      for (const key of [
        'minimum',
        'maximum',
        'minLength',
        'maxLength',
        'maxItems',
        'pattern',
        'minProperties',
        'default',
      ])
        expect(s).not.toHaveProperty(key);
      if (s.type === 'object') expect(s.additionalProperties).toBe(false);
    });
    expect(formatted.input_schema.required).toEqual(['order_id']);
  });

  it('gemini uses parametersJsonSchema without format "date" or pattern', () => {
    const formatted = formatTool(tool, 'gemini') as { parametersJsonSchema: Schema };
    walk(formatted.parametersJsonSchema, (s) => {
      expect(s.format === undefined || s.format === 'date-time').toBe(true);
      for (const key of ['pattern', 'minLength', 'maxLength', 'minProperties', 'default'])
        expect(s).not.toHaveProperty(key);
    });
  });

  it('openai-responses is a flat FunctionTool', () => {
    expect(formatTool(tool, 'openai-responses-strict')).toMatchObject({
      type: 'function',
      name: 'query_report_x',
      strict: true,
      parameters: { type: 'object', additionalProperties: false },
    });
  });

  it('a free-form object (generated tools, meta_tool testArgs) keeps its tool non-strict', () => {
    const free = {
      ...tool,
      inputSchema: {
        type: 'object' as const,
        properties: { testArgs: { type: 'object' as const }, name: { type: 'string' as const } },
        required: ['name'],
      },
    };
    expect(formatTool(free, 'openai-strict')).toMatchObject({ function: { strict: false } });
    expect(formatTool(free, 'anthropic-strict')).not.toHaveProperty('strict');
  });
});

describe('requestedFormat', () => {
  it.each([
    [undefined, undefined, 'openai'],
    ['openai', 'true', 'openai-strict'],
    ['openai-responses', 'true', 'openai-responses-strict'],
    ['anthropic', 'false', 'anthropic'],
    ['gemini', undefined, 'gemini'],
  ])('format=%s strict=%s -> %s', (format, strict, expected) => {
    expect(requestedFormat(format, strict)).toEqual({ ok: true, format: expected });
  });

  it.each([
    ['openai-strict', undefined, 'format must be one of'],
    ['gemini', 'true', 'gemini has no strict mode'],
    ['openai', 'yes', 'strict must be true or false'],
  ])('refuses format=%s strict=%s', (format, strict, message) => {
    const parsed = requestedFormat(format, strict);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.message).toContain(message);
  });
});
