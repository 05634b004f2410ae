import Ajv from 'ajv';
import { CHART_TYPES, NUMBER_FORMATS } from '../chart/chart';
import type { ChartHint } from '../chart/chart';
import type { TemplateProblem } from '../errors';
import type { FieldType, FilterType, ReportMetadata } from '../model/report';
import {
  FIELD_TYPES,
  FILTER_TYPES,
  MAX_EXAMPLE_QUESTIONS,
  MAX_SEARCH_TEXT_LENGTH,
  MAX_SYNONYMS,
} from '../model/report';

/** The report as the admin API reads and writes it: GET returns what PUT accepts. */
export interface ReportDocument {
  id: string;
  name: string;
  description: string;
  sql_template: string;
  category: string;
  status: 'active' | 'disabled';
  filters: Array<{
    name: string;
    type: FilterType;
    description: string;
    required: boolean;
    enum_values: string[] | null;
    default: unknown;
  }>;
  fields: Array<{ name: string; type: FieldType; description: string }>;
  /** optional, for tool search */
  synonyms?: string[];
  example_questions?: string[];
  /** optional: the tenant data source the report runs on */
  datasource?: string;
  /** optional: how the rows are best drawn (see chart.ts) */
  chart?: ChartHint;
  /** optional: answered as a task at once to MCP clients that take tasks (default false) */
  run_as_task?: boolean;
  /** optional: seconds a page of rows is answered again from the result cache (0 or absent: never) */
  cache_ttl_seconds?: number;
}

/** A day: the longest a report's rows may be answered from the result cache (issue #41). */
export const MAX_CACHE_TTL_SECONDS = 86_400;

const SEARCH_TEXTS = (max: number) => ({
  type: 'array',
  maxItems: max,
  items: { type: 'string', minLength: 1, maxLength: MAX_SEARCH_TEXT_LENGTH },
});

const NAME = { type: 'string', pattern: '^[a-z][a-z0-9_]*$', maxLength: 63 };

export const REPORT_DOCUMENT_SCHEMA = {
  type: 'object',
  required: ['name', 'description', 'sql_template', 'category'],
  additionalProperties: false,
  properties: {
    id: NAME,
    name: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string', minLength: 1, maxLength: 4000 },
    sql_template: { type: 'string', minLength: 1, maxLength: 100_000 },
    category: { type: 'string', minLength: 1, maxLength: 100 },
    status: { enum: ['active', 'disabled'] },
    synonyms: SEARCH_TEXTS(MAX_SYNONYMS),
    example_questions: SEARCH_TEXTS(MAX_EXAMPLE_QUESTIONS),
    datasource: NAME,
    // its parts are checked against the output fields (chartProblems), naming the field
    chart: {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', enum: [...CHART_TYPES] },
        x: { type: 'string' },
        y: { type: 'array', maxItems: 10, items: { type: 'string' } },
        series: { type: 'string' },
        format: {
          type: 'object',
          maxProperties: 200,
          additionalProperties: { type: 'string', enum: [...NUMBER_FORMATS] },
        },
      },
    },
    run_as_task: { type: 'boolean' },
    cache_ttl_seconds: { type: 'integer', minimum: 0, maximum: MAX_CACHE_TTL_SECONDS },
    filters: {
      type: 'array',
      maxItems: 50,
      items: {
        type: 'object',
        required: ['name', 'type'],
        additionalProperties: false,
        properties: {
          name: NAME,
          type: { enum: [...FILTER_TYPES] },
          description: { type: 'string', maxLength: 1000 },
          required: { type: 'boolean' },
          enum_values: {
            anyOf: [
              { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 500 },
              { type: 'null' },
            ],
          },
          default: {},
        },
      },
    },
    fields: {
      type: 'array',
      maxItems: 200,
      items: {
        type: 'object',
        required: ['name', 'type'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 63 },
          type: { enum: [...FIELD_TYPES] },
          description: { type: 'string', maxLength: 1000 },
        },
      },
    },
  },
} as const;

const validateDocument = new Ajv({ allErrors: true, strict: false }).compile(
  REPORT_DOCUMENT_SCHEMA,
);

/**
 * Checks the shape of a report document and turns it into metadata; the id comes from the
 * URL. Problems name the field (`filters/0/type must be one of ...`).
 */
export function parseReportDocument(
  tenantId: string,
  id: string,
  input: unknown,
):
  | { ok: true; metadata: ReportMetadata; status: 'active' | 'disabled' }
  | { ok: false; problems: TemplateProblem[] } {
  if (!validateDocument(input)) {
    const problems = (validateDocument.errors ?? []).map((e) => ({
      rule: 'document',
      message: `${e.instancePath.replace(/^\//, '') || 'report'} ${e.keyword === 'minLength' && (e.params as { limit: number }).limit === 1 ? 'is empty; it needs a value' : (e.message ?? 'is invalid')}${e.keyword === 'enum' ? `: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}` : ''}${e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : ''}`,
    }));
    return { ok: false, problems };
  }
  const doc = input as Partial<ReportDocument> &
    Pick<ReportDocument, 'name' | 'description' | 'sql_template' | 'category'>;
  if (doc.id !== undefined && doc.id !== id) {
    return {
      ok: false,
      problems: [
        { rule: 'document', message: `id "${doc.id}" in the body differs from "${id}" in the URL` },
      ],
    };
  }
  return {
    ok: true,
    status: doc.status ?? 'active',
    metadata: {
      tenantId,
      id,
      name: doc.name,
      description: doc.description,
      sqlTemplate: doc.sql_template,
      category: doc.category,
      version: 0,
      ...(doc.synonyms ? { synonyms: doc.synonyms } : {}),
      ...(doc.example_questions ? { exampleQuestions: doc.example_questions } : {}),
      ...(doc.datasource ? { datasource: doc.datasource } : {}),
      ...(doc.chart ? { chart: doc.chart } : {}),
      ...(doc.run_as_task ? { runAsTask: true } : {}),
      ...(doc.cache_ttl_seconds ? { cacheTtlSeconds: doc.cache_ttl_seconds } : {}),
      filters: (doc.filters ?? []).map((f) => ({
        name: f.name,
        type: f.type,
        description: f.description ?? '',
        required: f.required ?? false,
        enumValues: f.enum_values ?? null,
        defaultValue: f.default ?? null,
      })),
      fields: (doc.fields ?? []).map((f) => ({
        name: f.name,
        type: f.type,
        description: f.description ?? '',
      })),
    },
  };
}

export function toReportDocument(
  metadata: ReportMetadata,
  status: 'active' | 'disabled',
): ReportDocument {
  return {
    id: metadata.id,
    name: metadata.name,
    description: metadata.description,
    sql_template: metadata.sqlTemplate,
    category: metadata.category,
    status,
    ...(metadata.synonyms ? { synonyms: metadata.synonyms } : {}),
    ...(metadata.exampleQuestions ? { example_questions: metadata.exampleQuestions } : {}),
    ...(metadata.datasource ? { datasource: metadata.datasource } : {}),
    ...(metadata.chart ? { chart: metadata.chart } : {}),
    ...(metadata.runAsTask ? { run_as_task: true } : {}),
    ...(metadata.cacheTtlSeconds ? { cache_ttl_seconds: metadata.cacheTtlSeconds } : {}),
    filters: metadata.filters.map((f) => ({
      name: f.name,
      type: f.type,
      description: f.description,
      required: f.required,
      enum_values: f.enumValues,
      default: f.defaultValue,
    })),
    fields: metadata.fields.map((f) => ({
      name: f.name,
      type: f.type,
      description: f.description,
    })),
  };
}
