import type { TemplateProblem } from './errors';
import { isIdentityParam } from './identity';
import type { ReportMetadata } from './report';
import {
  FIELD_TYPES,
  FILTER_TYPES,
  MAX_EXAMPLE_QUESTIONS,
  MAX_SEARCH_TEXT_LENGTH,
  MAX_SYNONYMS,
  MAX_TOOL_NAME_LENGTH,
  REPORT_ID_PATTERN,
  TOOL_NAME_PREFIX,
} from './report';

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
    }
  }
  for (const field of report.fields) {
    if (!(FIELD_TYPES as readonly string[]).includes(field.type)) {
      add(
        'fields',
        `field "${field.name}" has unknown type "${field.type}" (known: ${FIELD_TYPES.join(', ')})`,
      );
    }
  }
  searchTextProblems('synonyms', report.synonyms, MAX_SYNONYMS, add);
  searchTextProblems('example_questions', report.exampleQuestions, MAX_EXAMPLE_QUESTIONS, add);
  return problems;
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
