import { findPlaceholders } from '../sql-binding';
import type { Placeholder } from '../sql-binding';
import { TemplateError } from '../../errors';
import { parseSql, scanSql } from '../sql-lexer';
import type { SqlToken } from '../sql-lexer';
import { isStatementNode, statementName } from './allowed-syntax';
import { isRecord, walkAst } from './ast-walk';
import { checkViewsAgree, scannedStatementCount } from './differential';
import { NodeRules } from './node-rules';
import { checkParameters, toPositional } from './parameters';
import type { ParameterPolicy, ParameterStyle } from './parameters';
import { buildTableWhitelist } from './relations';
import { ViolationSink } from './violations';
import type { SqlGuardViolation } from './violations';

export type { SqlGuardRule, SqlGuardViolation } from './violations';
export type { ParameterStyle } from './parameters';

export type SqlGuardVerdict = { ok: true } | { ok: false; errors: SqlGuardViolation[] };

/** 'schema.table' or bare 'table' (bare = in defaultSchema). */
export interface SqlWhitelist {
  defaultSchema: string;
  tables: readonly string[];
}

export interface SqlGuardInput {
  sql: string;
  whitelist: SqlWhitelist;
  /** declared `:name` placeholders; identity params (isIdentityParam) are always allowed */
  declaredParams: readonly string[];
  /** default 'named': only :names allowed, hand-written $n refused. 'positional': $n allowed */
  parameterStyle?: ParameterStyle;
  /** default true: every declared param must be used at least once */
  requireAllDeclaredUsed?: boolean;
}

/** What one reading of the text gave: the scanner's tokens and Postgres's parse tree. */
interface Reading {
  tokens: SqlToken[];
  placeholders: Placeholder[];
  positionalTokens: SqlToken[];
  statements: unknown[];
  expectedParams: number;
}

/**
 * Decides whether a SQL text is a single read-only SELECT over whitelisted tables, calling
 * only read-only built-in functions, with declared parameters. Pure: no I/O, no database; it
 * reads the SQL with Postgres's own scanner and parser (await initSqlParser() first).
 * Fails closed: whatever it does not understand is refused, with a message saying what to fix.
 */
export class SqlGuard {
  check(input: SqlGuardInput): SqlGuardVerdict {
    const sink = new ViolationSink();
    const reading = read(input.sql, sink);
    if (reading) {
      checkParameters(reading.tokens, reading.placeholders, parameterPolicy(input), sink);
      checkStatementsWithinStack(reading, input.whitelist, sink);
    }
    const errors = sink.violations;
    return errors.length === 0 ? { ok: true } : { ok: false, errors };
  }
}

function parameterPolicy(input: SqlGuardInput): ParameterPolicy {
  return {
    declaredParams: input.declaredParams,
    parameterStyle: input.parameterStyle ?? 'named',
    requireAllDeclaredUsed: input.requireAllDeclaredUsed ?? true,
  };
}

/** Scans and parses; a text Postgres cannot read is a `parse` violation with its own message. */
function read(sql: string, sink: ViolationSink): Reading | undefined {
  try {
    const tokens = scanSql(sql);
    const placeholders = findPlaceholders(sql);
    const { text, expectedParams } = toPositional(sql, tokens, placeholders);
    const positionalTokens = scanSql(text);
    const statements = parseSql(text).stmts ?? [];
    return { tokens, placeholders, positionalTokens, statements, expectedParams };
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error; // a caller's bug, not the SQL's
    for (const problem of error.problems) sink.add('parse', problem.message);
    return undefined;
  }
}

/** A parse tree deeper than the JS stack (thousands of chained `+`) is refused, not thrown. */
function checkStatementsWithinStack(
  reading: Reading,
  whitelist: SqlWhitelist,
  sink: ViolationSink,
): void {
  try {
    checkStatements(reading, whitelist, sink);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    sink.add('construct', 'the query is nested too deeply to check; simplify long expressions');
  }
}

function checkStatements(reading: Reading, whitelist: SqlWhitelist, sink: ViolationSink): void {
  const { statements } = reading;
  if (statements.length === 0) sink.add('single_statement', 'no SQL statement found');
  if (statements.length > 1) {
    sink.add('single_statement', `only one statement is allowed; found ${statements.length}`);
  }
  const rules = new NodeRules(buildTableWhitelist(whitelist.defaultSchema, whitelist.tables), sink);
  for (const raw of statements) {
    const stmt = isRecord(raw) ? raw.stmt : undefined;
    const type = isRecord(stmt) ? Object.keys(stmt)[0] : undefined;
    if (type === 'SelectStmt') walkAst(stmt, rules);
    else sink.add('select_only', `only SELECT statements are allowed; found ${describe(type)}`);
  }
  checkViewsAgree(
    {
      parsedStatements: statements.length,
      scannedStatements: scannedStatementCount(reading.positionalTokens),
      parsedParams: countNodes(statements, 'ParamRef'),
      scannedParams: reading.positionalTokens.filter((t) => t.kind === 'PARAM').length,
      expectedParams: reading.expectedParams,
    },
    sink,
  );
}

function countNodes(tree: unknown, nodeType: string): number {
  let count = 0;
  walkAst(tree, {
    node: (type) => {
      if (type === nodeType) count++;
      return true;
    },
  });
  return count;
}

function describe(type: string | undefined): string {
  if (type === undefined) return 'an unrecognised statement';
  return isStatementNode(type) ? statementName(type) : type;
}
