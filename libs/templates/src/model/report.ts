import type { ChartHint } from './chart-hint';

/** Report metadata as the templates library sees it: plain data, no database rows. */

export const FILTER_TYPES = [
  'string',
  'enum',
  'integer',
  'number',
  'number_range',
  'date',
  'date_range',
  'boolean',
  'string_list',
] as const;
export type FilterType = (typeof FILTER_TYPES)[number];

export const FIELD_TYPES = [
  'string',
  'integer',
  'number',
  'date',
  'timestamp',
  'boolean',
  'json',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface ReportFilter {
  name: string;
  type: FilterType;
  description: string;
  required: boolean;
  enumValues: string[] | null;
  defaultValue: unknown;
}

export interface ReportField {
  name: string;
  type: FieldType;
  description: string;
}

export interface ReportMetadata {
  tenantId: string;
  id: string;
  name: string;
  description: string;
  sqlTemplate: string;
  category: string;
  version: number;
  filters: ReportFilter[];
  fields: ReportField[];
  /** optional words users say for this report (tool search only; not in the tool definition) */
  synonyms?: string[];
  /** optional questions this report answers (tool search only) */
  exampleQuestions?: string[];
  /** per-report execution limits; absent or null: the gateway-wide settings */
  limits?: ReportLimits;
  /** the tenant data source (its own Postgres) the report runs on; absent: the tenant's schema */
  datasource?: string;
  /** how its rows are best drawn (chart.ts); absent: inferred from the output fields */
  chart?: ChartHint;
  /**
   * true: an MCP call from a client that declares the Tasks extension is answered with a task
   * at once (no wait for MCP_TASK_AFTER_MS); other clients get the synchronous answer
   */
  runAsTask?: boolean;
  /**
   * seconds a page of rows may be answered again from the result cache (issue #41), keyed by the
   * catalog version, the caller's bound identity values and the arguments; absent: never cached
   */
  cacheTtlSeconds?: number;
}

export interface ReportLimits {
  statementTimeoutMs: number | null;
  /** the largest page this report returns, whatever page_size asks for */
  maxRows: number | null;
  maxResultBytes: number | null;
}

export const MAX_SYNONYMS = 50;
export const MAX_EXAMPLE_QUESTIONS = 20;
export const MAX_SEARCH_TEXT_LENGTH = 200;

export const REPORT_ID_PATTERN = /^[a-z][a-z0-9_]*$/;
export const TOOL_NAME_PREFIX = 'query_report_';
export const MAX_TOOL_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 1024;
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;
