/**
 * The first pass of the MySQL-dialect guard (issue #42): the template read as MySQL's own lexer
 * reads it, before any parser sees it. MySQL runs what hides in a comment when the comment starts
 * `/*!` (an executable comment) and reads hints from `/*+`; both are refused, never stripped.
 * Outside strings and comments, `@` (user and system variables) and `:=` (assignment) are
 * refused, and `:name` parameters are collected, to be bound as real `?` placeholders.
 */
export interface MysqlLexed {
  /** what is refused, with why; empty when the text may go on to the parser */
  problems: string[];
  /** the text with comments blanked and `:name` kept, for the parser */
  parseText: string;
  /** the text with every `:name` as `?`, for the driver */
  boundText: string;
  /** the parameters, in placeholder order (a name may repeat) */
  params: string[];
  /** the statement has a LIMIT of its own, outside every parenthesis */
  ownLimit: boolean;
}

const PARAM = /^:([a-z_][a-z0-9_]*)/i;

export function lexMysql(sql: string): MysqlLexed {
  const problems: string[] = [];
  const params: string[] = [];
  let parseText = '';
  let boundText = '';
  const emit = (both: string, bound = both) => {
    parseText += both;
    boundText += bound;
  };
  let depth = 0;
  let ownLimit = false;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === '(') depth += 1;
    else if (c === ')') depth -= 1;
    else if (depth === 0 && /^limit\b/i.test(sql.slice(i, i + 6)) && !/\w/.test(sql[i - 1] ?? ''))
      ownLimit = true;
    if (c === "'" || c === '"' || c === '`') {
      const end = quotedEnd(sql, i);
      if (end < 0) {
        problems.push(`an unterminated ${c === '`' ? 'quoted name' : 'string'}`);
        break;
      }
      emit(sql.slice(i, end));
      i = end;
    } else if (c === '/' && next === '*') {
      const third = sql[i + 2];
      if (third === '!' || third === '+') {
        problems.push(
          third === '!'
            ? 'an executable comment (/*! ... */): MySQL runs what it holds'
            : 'an optimizer hint (/*+ ... */)',
        );
        break;
      }
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) {
        problems.push('an unterminated comment');
        break;
      }
      emit(' ');
      i = end + 2;
    } else if (c === '#' || (c === '-' && next === '-' && /[\s]/.test(sql[i + 2] ?? ' '))) {
      const end = sql.indexOf('\n', i);
      emit(' ');
      i = end < 0 ? sql.length : end;
    } else if (c === '@') {
      problems.push('a variable (@name or @@name): templates read data, never session state');
      break;
    } else if (c === ':' && next === '=') {
      problems.push('an assignment (:=)');
      break;
    } else if (c === ':' && PARAM.test(sql.slice(i))) {
      const name = PARAM.exec(sql.slice(i))![1];
      params.push(name);
      emit(`:${name}`, '?');
      i += name.length + 1;
    } else if (c === ';') {
      if (sql.slice(i + 1).trim() !== '') {
        problems.push('more than one statement (;)');
        break;
      }
      i = sql.length; // one trailing semicolon, as people type them
    } else if (c === '?') {
      problems.push('a ? placeholder written by hand: use :name placeholders');
      break;
    } else if (c === '\\') {
      problems.push('a backslash outside a string');
      break;
    } else {
      emit(c);
      i += 1;
    }
  }
  return { problems, parseText, boundText, params, ownLimit };
}

/** Where the quoted run starting at `start` ends (after its closing quote), or -1. */
function quotedEnd(sql: string, start: number): number {
  const quote = sql[start];
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i];
    if (c === '\\' && quote !== '`') {
      i += 2; // MySQL's backslash escapes in strings (NO_BACKSLASH_ESCAPES aside)
    } else if (c === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else {
      i += 1;
    }
  }
  return -1;
}
