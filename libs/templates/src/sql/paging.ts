import type { BoundTemplate } from './sql-binding';
import { scanSql } from './sql-lexer';

/** The SQL a report's template is written in: its source's engine (issue #42). */
export type SqlDialect = 'postgres' | 'mysql';

export interface PagedQuery {
  text: string;
  /** values to append after the template's own: LIMIT (one extra row tells has_more) and OFFSET */
  pageValues(page: number, pageSize: number): [limit: number, offset: number];
}

/**
 * Wraps a bound template so the database pages it: `SELECT * FROM (<template>) LIMIT OFFSET`.
 * One row more than the page is fetched to learn whether another page exists. A trailing
 * `;` is dropped; newlines keep a trailing `--` comment from swallowing the wrapper.
 */
export function pagedQuery(bound: BoundTemplate, dialect: SqlDialect = 'postgres'): PagedQuery {
  const n = bound.parameterNames.length;
  const pageValues = (page: number, pageSize: number): [number, number] => [
    pageSize + 1,
    (page - 1) * pageSize,
  ];
  if (dialect === 'mysql')
    return {
      // MySQL and MariaDB drop a derived table's ORDER BY unless it has a LIMIT: a template
      // without one is paged by its own LIMIT clause (comments are blanked, no `;` is left)
      text: bound.ownLimit
        ? `SELECT * FROM (\n${bound.text}\n) AS report_rows LIMIT ? OFFSET ?`
        : `${bound.text}\nLIMIT ? OFFSET ?`,
      pageValues,
    };
  const body = withoutTrailingSemicolon(bound.text);
  return {
    text: `SELECT * FROM (\n${body}\n) AS report_rows LIMIT $${n + 1} OFFSET $${n + 2}`,
    pageValues,
  };
}

function withoutTrailingSemicolon(sql: string): string {
  const tokens = scanSql(sql).filter((t) => t.kind !== 'SQL_COMMENT' && t.kind !== 'C_COMMENT');
  const last = tokens[tokens.length - 1];
  return last?.text === ';' ? sql.slice(0, last.start) + sql.slice(last.end) : sql;
}
