import type { FieldType, ReportField, ReportFilter } from '../model/report';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../model/report';

/** The subset of JSON Schema the gateway emits: enough for OpenAI, Anthropic and MCP. */
export type JsonType = 'object' | 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'null';

export interface JsonSchema {
  type?: JsonType | JsonType[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  enum?: string[];
  items?: JsonSchema;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  minProperties?: number;
  default?: unknown;
}

export const MAX_STRING_ARGUMENT = 200;
export const MAX_LIST_ITEMS = 100;

const DATE: JsonSchema = { type: 'string', format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };

function filterValueSchema(filter: ReportFilter): JsonSchema {
  switch (filter.type) {
    case 'string':
      return { type: 'string', minLength: 1, maxLength: MAX_STRING_ARGUMENT };
    case 'enum':
      return { type: 'string', enum: filter.enumValues ?? [] };
    case 'integer':
      return { type: 'integer' };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { ...DATE };
    case 'string_list':
      return {
        type: 'array',
        items: { type: 'string', maxLength: MAX_STRING_ARGUMENT },
        maxItems: MAX_LIST_ITEMS,
      };
    case 'date_range':
      return {
        type: 'object',
        properties: {
          start: { ...DATE, description: 'first day, inclusive (YYYY-MM-DD)' },
          end: { ...DATE, description: 'last day, inclusive (YYYY-MM-DD)' },
        },
        additionalProperties: false,
        minProperties: 1,
      };
    case 'number_range':
      return {
        type: 'object',
        properties: {
          min: { type: 'number', description: 'lower bound, inclusive' },
          max: { type: 'number', description: 'upper bound, inclusive' },
        },
        additionalProperties: false,
        minProperties: 1,
      };
  }
}

/** The structured result of every report tool: columns, rows of the page, paging. */
export const REPORT_RESULT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    columns: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, type: { type: 'string' } },
        required: ['name', 'type'],
      },
    },
    rows: { type: 'array', items: { type: 'object' } },
    page: { type: 'integer', minimum: 1 },
    page_size: { type: 'integer', minimum: 1 },
    has_more: { type: 'boolean' },
  },
  required: ['columns', 'rows', 'page', 'page_size', 'has_more'],
};

/**
 * A value of a declared field as the executor returns it. Any column may be NULL; a bigint
 * past 2^53 comes back as text; dates and timestamps as text.
 */
function fieldValueSchema(type: FieldType): JsonSchema {
  switch (type) {
    case 'string':
    case 'date':
    case 'timestamp':
      return { type: ['string', 'null'] };
    case 'integer':
      return { type: ['integer', 'string', 'null'] };
    case 'number':
      return { type: ['number', 'null'] };
    case 'boolean':
      return { type: ['boolean', 'null'] };
    case 'json':
      return {};
  }
}

/** REPORT_RESULT_SCHEMA with rows typed from the report's declared fields. */
export function reportResultSchema(fields: readonly ReportField[]): JsonSchema {
  if (fields.length === 0) return REPORT_RESULT_SCHEMA;
  const properties: Record<string, JsonSchema> = {};
  for (const field of fields) {
    properties[field.name] = {
      ...fieldValueSchema(field.type),
      ...(field.description ? { description: field.description } : {}),
    };
  }
  return {
    ...REPORT_RESULT_SCHEMA,
    properties: {
      ...REPORT_RESULT_SCHEMA.properties,
      rows: { type: 'array', items: { type: 'object', properties } },
    },
  };
}

/** JSON Schema of a report tool's arguments: one property per filter plus paging. */
export function argumentsSchema(filters: readonly ReportFilter[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const filter of filters) {
    const schema = filterValueSchema(filter);
    if (filter.description) schema.description = filter.description;
    if (filter.defaultValue !== null && filter.defaultValue !== undefined) {
      schema.default = filter.defaultValue;
    }
    properties[filter.name] = schema;
  }
  properties.page = { type: 'integer', minimum: 1, default: 1, description: 'page number, from 1' };
  properties.page_size = {
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
    description: `rows per page, 1..${MAX_PAGE_SIZE}`,
  };
  const required = filters.filter((f) => f.required).map((f) => f.name);
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}
