import { ArgumentValidator } from './arguments';
import { chartProblems } from '../chart/chart';
import type { TemplateProblem } from '../errors';
import { argumentsSchema } from './json-schema';
import { isIdentityParam } from '../model/identity';
import type { ReportFilter, ReportMetadata } from '../model/report';
import {
  FIELD_TYPES,
  FILTER_TYPES,
  MAX_EXAMPLE_QUESTIONS,
  MAX_SEARCH_TEXT_LENGTH,
  MAX_SYNONYMS,
  MAX_TOOL_NAME_LENGTH,
  REPORT_ID_PATTERN,
  TOOL_NAME_PREFIX,
} from '../model/report';

const RESERVED_ARGUMENTS = new Set(['page', 'page_size']);
const NAME_PATTERN = /^[a-z][a-z0-9_]*$/;

/** Structural problems of report metadata; the SQL itself is judged by the SQL guard. */
export function reportProblems(report: ReportMetadata): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  const add = (rule: string, message: string) => problems.push({ rule, message });

  if (!REPORT_ID_PATTERN.test(report.id)) {
    add('id', `report id "${report.id}" must match ^[a-z][a-z0-9_]*$`);
  } else if (TOOL_NAME_PREFIX.length + report.id.length > MAX_TOOL_NAME_LENGTH) {
    add(
      'id',
      `report id "${report.id}" is too long: the tool name must be at most ${MAX_TOOL_NAME_LENGTH} characters (id at most ${MAX_TOOL_NAME_LENGTH - TOOL_NAME_PREFIX.length})`,
    );
  }
  if (!report.name.trim()) add('name', 'report name must not be empty');
  if (!report.description.trim()) add('description', 'business description must not be empty');
  if (!report.sqlTemplate.trim()) add('sql_template', 'sql_template must not be empty');
  if (!report.category.trim()) add('category', 'category must not be empty');

  const seen = new Set<string>();
  for (const filter of report.filters) {
    if (!NAME_PATTERN.test(filter.name)) {
      add('filters', `filter name "${filter.name}" must match ^[a-z][a-z0-9_]*$`);
    }
    if (seen.has(filter.name)) add('filters', `filter "${filter.name}" is declared twice`);
    seen.add(filter.name);
    if (RESERVED_ARGUMENTS.has(filter.name) || isIdentityParam(filter.name)) {
      add('filters', `filter name "${filter.name}" is reserved`);
    }
    if (!(FILTER_TYPES as readonly string[]).includes(filter.type)) {
      add(
        'filters',
        `filter "${filter.name}" has unknown type "${filter.type}" (known: ${FILTER_TYPES.join(', ')})`,
      );
    }
    if (filter.type === 'enum' && (!filter.enumValues || filter.enumValues.length === 0)) {
      add('filters', `enum filter "${filter.name}" needs enum_values`);
    } else {
      const badDefault = defaultProblem(filter);
      if (badDefault) add('filters', badDefault);
    }
  }
  const fieldNames = new Set<string>();
  for (const field of report.fields) {
    if (fieldNames.has(field.name)) add('fields', `field "${field.name}" is declared twice`);
    fieldNames.add(field.name);
    if (!(FIELD_TYPES as readonly string[]).includes(field.type)) {
      add(
        'fields',
        `field "${field.name}" has unknown type "${field.type}" (known: ${FIELD_TYPES.join(', ')})`,
      );
    }
  }
  searchTextProblems('synonyms', report.synonyms, MAX_SYNONYMS, add);
  searchTextProblems('example_questions', report.exampleQuestions, MAX_EXAMPLE_QUESTIONS, add);
  if (report.chart !== undefined)
    for (const problem of chartProblems(report.chart, report.fields)) problems.push(problem);
  const nul = nulCharacterAt(report);
  if (nul)
    add(
      nul.split('.')[0],
      `${nul} contains a NUL character (\\u0000), which Postgres text cannot hold`,
    );
  return problems;
}

/**
 * A default that a caller could not have sent breaks every call that omits the filter, so it
 * passes the same check as an argument (an integer must also be exact: at most 2^53 - 1).
 */
function defaultProblem(filter: ReportFilter): string | undefined {
  const value = filter.defaultValue;
  if (value === null || value === undefined) return undefined;
  if (!(FILTER_TYPES as readonly string[]).includes(filter.type)) return undefined;
  const bare = { ...filter, defaultValue: null };
  const check = new ArgumentValidator(argumentsSchema([bare]), [bare]).check({
    [filter.name]: value,
  });
  if (!check.ok)
    return `filter "${filter.name}" has a default its own type refuses: ${check.message}`;
  if (filter.type === 'integer' && !Number.isSafeInteger(value))
    return `filter "${filter.name}" has a default that is not an exact integer (at most 2^53 - 1): ${String(value)}`;
  return undefined;
}

/** The first text of the report holding U+0000, as a field path, or undefined. */
function nulCharacterAt(report: ReportMetadata): string | undefined {
  const texts: Array<[string, unknown]> = [
    ['name', report.name],
    ['description', report.description],
    ['sql_template', report.sqlTemplate],
    ['category', report.category],
    ...(report.synonyms ?? []).map((t, i): [string, unknown] => [`synonyms.${i}`, t]),
    ...(report.exampleQuestions ?? []).map((t, i): [string, unknown] => [
      `example_questions.${i}`,
      t,
    ]),
    ...report.filters.map((f, i): [string, unknown] => [`filters.${i}`, f]),
    ...report.fields.map((f, i): [string, unknown] => [`fields.${i}`, f]),
  ];
  for (const [path, value] of texts) if (holdsNul(value)) return path;
  return undefined;
}

function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some(holdsNul);
}

/** Optional search metadata: a short list of non-empty, short strings. */
function searchTextProblems(
  rule: string,
  list: readonly unknown[] | undefined,
  max: number,
  add: (rule: string, message: string) => void,
): void {
  if (list === undefined) return;
  if (list.length > max) add(rule, `${rule} has ${list.length} entries; at most ${max}`);
  list.forEach((entry, i) => {
    if (typeof entry !== 'string' || entry.trim() === '')
      add(rule, `${rule}[${i}] must be a non-empty string`);
    else if (entry.length > MAX_SEARCH_TEXT_LENGTH)
      add(rule, `${rule}[${i}] is ${entry.length} characters; at most ${MAX_SEARCH_TEXT_LENGTH}`);
  });
}
