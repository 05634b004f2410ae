import { TemplateError } from '../errors';
import { isIdentityParam } from '../model/identity';
import type { FilterType, ReportFilter } from '../model/report';
import { scanSql } from './sql-lexer';

/** A `:name` placeholder found in live SQL (not in a string, comment or `::cast`). */
export interface Placeholder {
  name: string;
  start: number;
  end: number;
}

/** SQL with positional `$n` parameters and, for each position, the template name it came from. */
export interface BoundTemplate {
  text: string;
  parameterNames: string[];
  /** MySQL only: the statement has a LIMIT of its own at its top level (paging.ts) */
  ownLimit?: boolean;
}

const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Finds `:name` placeholders with Postgres's scanner, so `':x'`, `/* :x *\/`, `$$:x$$`,
 * `E'\':x'` and `a::int` are never mistaken for parameters.
 */
export function findPlaceholders(sql: string): Placeholder[] {
  const tokens = scanSql(sql);
  const found: Placeholder[] = [];
  for (let i = 0; i < tokens.length - 1; i++) {
    const colon = tokens[i];
    const next = tokens[i + 1];
    if (colon.text !== ':' || next.start !== colon.end || !PLACEHOLDER_NAME.test(next.text)) {
      continue;
    }
    found.push({ name: next.text.toLowerCase(), start: colon.start, end: next.end });
    i++;
  }
  return found;
}

/** Postgres type each template parameter is cast to, so `:x IS NULL` needs no cast by hand. */
const PG_TYPE: Record<Exclude<FilterType, 'date_range' | 'number_range'>, string> = {
  string: 'text',
  enum: 'text',
  integer: 'bigint',
  number: 'numeric',
  date: 'date',
  boolean: 'boolean',
  string_list: 'text[]',
};

/** Template parameter names a filter provides: ranges provide two (`_start`/`_end`, `_min`/`_max`). */
export function filterParameters(filter: ReportFilter): Array<[string, string]> {
  switch (filter.type) {
    case 'date_range':
      return [
        [`${filter.name}_start`, 'date'],
        [`${filter.name}_end`, 'date'],
      ];
    case 'number_range':
      return [
        [`${filter.name}_min`, 'numeric'],
        [`${filter.name}_max`, 'numeric'],
      ];
    default:
      return [[filter.name, PG_TYPE[filter.type]]];
  }
}

/** Every parameter name a report's template may use, with its Postgres type. */
export function declaredParameters(filters: readonly ReportFilter[]): Map<string, string> {
  const declared = new Map<string, string>();
  for (const filter of filters) {
    for (const [name, type] of filterParameters(filter)) declared.set(name, type);
  }
  return declared;
}

/**
 * Rewrites `:name` placeholders into `$n::type` positional parameters. Values are never
 * spliced into the text. A name used twice gets the same position. Unknown names, and
 * positional `$n` written by hand, are refused.
 */
export function bindTemplate(sql: string, declared: ReadonlyMap<string, string>): BoundTemplate {
  const handWritten = scanSql(sql).filter((t) => t.kind === 'PARAM');
  if (handWritten.length > 0) {
    throw new TemplateError('INVALID_TEMPLATE', [
      {
        rule: 'parameters',
        message: `use :name placeholders, not positional parameters (found ${handWritten[0].text})`,
      },
    ]);
  }
  const placeholders = findPlaceholders(sql);
  const unknown = [
    ...new Set(
      placeholders
        .filter((p) => !declared.has(p.name) && !isIdentityParam(p.name))
        .map((p) => p.name),
    ),
  ];
  if (unknown.length > 0) {
    throw new TemplateError(
      'INVALID_TEMPLATE',
      unknown.map((name) => ({
        rule: 'parameters',
        message: `:${name} is not a declared filter parameter (declared: ${[...declared.keys()].join(', ') || 'none'})`,
      })),
    );
  }
  const parameterNames: string[] = [];
  let text = '';
  let cursor = 0;
  for (const p of placeholders) {
    let position = parameterNames.indexOf(p.name);
    if (position < 0) position = parameterNames.push(p.name) - 1;
    const type = declared.get(p.name) ?? 'text';
    text += `${sql.slice(cursor, p.start)}$${position + 1}::${type}`;
    cursor = p.end;
  }
  text += sql.slice(cursor);
  return { text, parameterNames };
}
