import { TemplateError } from '../../errors';
import { isIdentityParam } from '../../model/identity';
import type { BoundTemplate } from '../sql-binding';
import { lexMysql } from './mysql-lexer';

/**
 * A template on a MySQL-protocol source (issue #42) with its `:name` placeholders as `?`, read by
 * MySQL's lexer rules (backticks, `#` comments, backslash escapes in strings). `?` is positional
 * and nameless, so a name used twice takes two positions, both bound to its value. Unknown names
 * and what the lexer refuses (executable comments, hints, variables) are a TemplateError.
 */
export function bindMysqlTemplate(
  sql: string,
  declared: ReadonlyMap<string, string>,
): BoundTemplate {
  const lexed = lexMysql(sql);
  if (lexed.problems.length > 0)
    throw new TemplateError(
      'INVALID_TEMPLATE',
      lexed.problems.map((message) => ({ rule: 'mysql', message })),
    );
  const names = lexed.params.map((name) => name.toLowerCase());
  const unknown = [...new Set(names.filter((n) => !declared.has(n) && !isIdentityParam(n)))];
  if (unknown.length > 0)
    throw new TemplateError(
      'INVALID_TEMPLATE',
      unknown.map((name) => ({
        rule: 'parameters',
        message: `:${name} is not a declared filter parameter (declared: ${[...declared.keys()].join(', ') || 'none'})`,
      })),
    );
  return { text: lexed.boundText.trim(), parameterNames: names, ownLimit: lexed.ownLimit };
}

/** A value as a `?` of a MySQL prepared statement takes it: a list goes as its JSON text. */
export function mysqlParameter(value: unknown): unknown {
  return Array.isArray(value) ? JSON.stringify(value) : value;
}
