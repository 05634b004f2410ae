import type { SqlToken } from '../sql-lexer';
import type { ViolationSink } from './violations';

const COMMENTS = new Set(['C_COMMENT', 'SQL_COMMENT']);

/**
 * Statements as the scanner sees them: runs of live tokens split by `;` outside parentheses.
 * Empty runs (`;;`, a trailing `;`) are no statement, as for the parser.
 */
export function scannedStatementCount(tokens: readonly SqlToken[]): number {
  let count = 0;
  let depth = 0;
  let inStatement = false;
  for (const token of tokens) {
    if (COMMENTS.has(token.kind)) continue;
    if (token.text === '(' || token.text === '[') depth++;
    else if (token.text === ')' || token.text === ']') depth = Math.max(0, depth - 1);
    if (token.text === ';' && depth === 0) {
      inStatement = false;
      continue;
    }
    if (!inStatement) count++;
    inStatement = true;
  }
  return count;
}

export interface TwoViews {
  /** statements in the parse tree / found by the scanner */
  parsedStatements: number;
  scannedStatements: number;
  /** `$n` references in the parse tree / PARAM tokens the scanner found / placeholders rewritten */
  parsedParams: number;
  scannedParams: number;
  expectedParams: number;
}

/**
 * Postgres's scanner and parser read the same text; when their counts disagree, something in
 * the text is read in two ways (or a rewrite went wrong), and the query is refused rather than
 * trusting either view.
 */
export function checkViewsAgree(views: TwoViews, sink: ViolationSink): void {
  if (views.parsedStatements !== views.scannedStatements) {
    sink.add(
      'differential',
      `the parser found ${views.parsedStatements} statement(s) but the scanner found ` +
        `${views.scannedStatements}; remove stray semicolons and unusual quoting`,
    );
  }
  const { parsedParams, scannedParams, expectedParams } = views;
  if (parsedParams !== scannedParams || scannedParams !== expectedParams) {
    sink.add(
      'differential',
      `parameters are read inconsistently (${expectedParams} expected, ${parsedParams} parsed); ` +
        'write placeholders as separate tokens, e.g. "col = :name"',
    );
  }
}
