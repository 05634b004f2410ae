import { ALLOWED_FUNCTION_KINDS, ALLOWED_FUNCTIONS } from './allowed-functions';
import { amplifierProblem, AMPLIFIERS } from './amplifiers';
import {
  ALLOWED_NODE_TYPES,
  ALLOWED_OPERATORS,
  ALLOWED_TYPES,
  isStatementNode,
  REFUSED_CONSTRUCTS,
  statementName,
} from './allowed-syntax';
import { isRecord } from './ast-walk';
import type { AstFields, AstVisitor, CteScope } from './ast-walk';
import { checkRelation } from './relations';
import type { TableWhitelist } from './relations';
import type { ViolationSink } from './violations';

/**
 * The per-node rules: which constructs, relations, functions, operators and types a query may
 * use. Used as the visitor of the generic AST walk, so it sees every node wherever it sits.
 */
export class NodeRules implements AstVisitor {
  constructor(
    private readonly whitelist: TableWhitelist,
    private readonly sink: ViolationSink,
  ) {}

  node(type: string, fields: AstFields, scope: CteScope): boolean {
    if (!ALLOWED_NODE_TYPES.has(type)) return this.refuseConstruct(type);
    switch (type) {
      case 'RangeVar': {
        const problem = checkRelation(fields, scope, this.whitelist);
        if (problem) this.sink.add('relation', problem);
        return true;
      }
      case 'CommonTableExpr':
        return this.checkCte(fields);
      case 'FuncCall':
        this.checkFunction(fields.funcname, fields);
        return true;
      case 'TypeName':
        this.checkType(fields.names);
        return true;
      case 'A_Expr':
        this.checkOperator(fields.name);
        return true;
      case 'SubLink':
        this.checkOperator(fields.operName);
        return true;
      case 'SortBy':
        this.checkOperator(fields.useOp);
        return true;
      default:
        return true;
    }
  }

  private refuseConstruct(type: string): false {
    const known = REFUSED_CONSTRUCTS.get(type);
    if (known) this.sink.add(...known);
    else if (isStatementNode(type)) {
      this.sink.add(
        'select_only',
        `a ${statementName(type)} statement inside a query is not allowed`,
      );
    } else {
      this.sink.add(
        'construct',
        `the SQL construct ${type} is not supported; use plain SELECT syntax`,
      );
    }
    return false;
  }

  /** A CTE must itself be a SELECT: `WITH x AS (DELETE ... RETURNING ...)` writes. */
  private checkCte(fields: AstFields): boolean {
    const query = fields.ctequery;
    const type = isRecord(query) ? Object.keys(query)[0] : undefined;
    if (type === 'SelectStmt') return true;
    const what = type && isStatementNode(type) ? statementName(type) : 'non-SELECT';
    this.sink.add('select_only', `data-modifying statement (${what}) inside WITH is not allowed`);
    return false;
  }

  private checkFunction(funcname: unknown, fields: AstFields): void {
    const parts = nameParts(funcname);
    const name = builtinName(parts);
    const refused = `function ${parts.join('.')} is not allowed`;
    if (name === undefined) {
      this.sink.add(
        'function',
        `${refused}; only built-in functions (unqualified or pg_catalog.) may be called`,
      );
    } else if (!ALLOWED_FUNCTIONS.has(name)) {
      this.sink.add(
        'function',
        `${refused}; allowed functions are read-only (${ALLOWED_FUNCTION_KINDS})`,
      );
    } else if (AMPLIFIERS.has(name)) {
      const problem = amplifierProblem(name, fields);
      if (problem) this.sink.add('amplifier', problem);
    }
  }

  private checkType(names: unknown): void {
    const parts = nameParts(names);
    const name = builtinName(parts);
    if (name !== undefined && ALLOWED_TYPES.has(name)) return;
    const display = parts.join('.');
    const why = /^reg/.test(name ?? '')
      ? 'reg* types look names up in the system catalogs'
      : 'use a built-in type such as text, integer, numeric, date, timestamptz, boolean or jsonb';
    this.sink.add('cast', `cast to type ${display} is not allowed; ${why}`);
  }

  private checkOperator(name: unknown): void {
    if (name === undefined) return;
    const parts = nameParts(name);
    const op = builtinName(parts);
    if (op !== undefined && ALLOWED_OPERATORS.has(op)) return;
    this.sink.add('function', `operator ${parts.join('.')} is not allowed; use built-in operators`);
  }
}

/** `[{String:{sval:'pg_catalog'}}, {String:{sval:'lower'}}]` -> `['pg_catalog', 'lower']`. */
function nameParts(list: unknown): string[] {
  if (!Array.isArray(list)) return ['?'];
  return list.map((item) => {
    const str = isRecord(item) && isRecord(item.String) ? item.String.sval : undefined;
    return typeof str === 'string' ? str : '?';
  });
}

/** The bare name when `parts` names a built-in (unqualified or in pg_catalog), else undefined. */
function builtinName(parts: readonly string[]): string | undefined {
  if (parts.length === 1) return parts[0];
  if (parts.length === 2 && parts[0] === 'pg_catalog') return parts[1];
  return undefined;
}
