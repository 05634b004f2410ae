/**
 * Generic traversal of libpg-query's JSON parse tree. It visits every object and array, so no
 * sub-select can hide in a position nobody listed; the only structure it knows about is WITH,
 * because which names are CTEs (and not tables) depends on where a reference sits.
 *
 * The JSON has two shapes: wrapped nodes `{ "FuncCall": { ...fields } }` (node type names start
 * with an upper-case letter) and plain field objects (`larg`, `typeName`, `withClause`, ...)
 * where the C struct field has a fixed type. For the latter the type is implied by the key.
 */
export type AstFields = Readonly<Record<string, unknown>>;

/** CTE names visible at a point of the query. */
export type CteScope = ReadonlySet<string>;

export interface AstVisitor {
  /** Called for every node before its children; return false to skip the children. */
  node(type: string, fields: AstFields, scope: CteScope): boolean;
}

/** Plain field objects whose node type we need to see (the rest are walked as plain fields). */
const IMPLIED_NODE_TYPES: ReadonlyMap<string, string> = new Map([
  ['typeName', 'TypeName'],
  ['intoClause', 'IntoClause'],
  ['larg', 'SelectStmt'],
  ['rarg', 'SelectStmt'],
  ['withClause', 'WithClause'],
  ['relation', 'RangeVar'],
  ['rel', 'RangeVar'],
  ['identitySequence', 'RangeVar'],
]);

export function isRecord(value: unknown): value is AstFields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNodeTypeName(key: string): boolean {
  return /^[A-Z]/.test(key);
}

export function walkAst(value: unknown, visitor: AstVisitor, scope: CteScope = new Set()): void {
  walkValue(value, undefined, visitor, scope);
}

function walkValue(
  value: unknown,
  key: string | undefined,
  visitor: AstVisitor,
  scope: CteScope,
): void {
  if (Array.isArray(value)) {
    for (const item of value) walkValue(item, undefined, visitor, scope);
    return;
  }
  if (!isRecord(value)) return;
  const entries = Object.entries(value);
  const wrapped = entries.some(([k]) => isNodeTypeName(k));
  if (!wrapped) {
    const implied = key === undefined ? undefined : IMPLIED_NODE_TYPES.get(key);
    walkNode(implied, value, visitor, scope);
    return;
  }
  for (const [type, fields] of entries) {
    if (!isNodeTypeName(type)) walkValue(fields, type, visitor, scope);
    else if (isRecord(fields)) walkNode(type, fields, visitor, scope);
    // a node in an unexpected shape is still shown to the visitor, so it can be refused
    else if (visitor.node(type, {}, scope)) walkValue(fields, undefined, visitor, scope);
  }
}

/** Visits one node (when its type is known) and then its fields, in the scope its WITH creates. */
function walkNode(
  type: string | undefined,
  fields: AstFields,
  visitor: AstVisitor,
  scope: CteScope,
): void {
  if (type !== undefined && !visitor.node(type, fields, scope)) return;
  const withClause = unwrap(fields.withClause, 'WithClause');
  let inner = scope;
  if (withClause) {
    if (!visitor.node('WithClause', withClause, scope)) return;
    inner = walkWithClause(withClause, visitor, scope);
  }
  for (const [key, value] of Object.entries(fields)) {
    if (key !== 'withClause') walkValue(value, key, visitor, inner);
  }
}

function unwrap(value: unknown, type: string): AstFields | undefined {
  if (!isRecord(value)) return undefined;
  const inner = value[type];
  return isRecord(inner) ? inner : value;
}

/**
 * Walks the CTE definitions and returns the scope of the query the WITH belongs to. Postgres
 * scoping: a CTE is visible in that query and in later siblings; with RECURSIVE, every CTE of
 * the list is visible in every CTE of the list, itself included.
 */
function walkWithClause(withClause: AstFields, visitor: AstVisitor, outer: CteScope): CteScope {
  const ctes = Array.isArray(withClause.ctes) ? withClause.ctes : [];
  const names = ctes.map(cteName).filter((n): n is string => n !== undefined);
  const all = new Set([...outer, ...names]);
  const running = new Set(outer);
  for (const cte of ctes) {
    walkValue(cte, undefined, visitor, withClause.recursive === true ? all : new Set(running));
    const name = cteName(cte);
    if (name !== undefined) running.add(name);
  }
  for (const [key, value] of Object.entries(withClause)) {
    if (key !== 'ctes') walkValue(value, key, visitor, outer);
  }
  return all;
}

function cteName(cte: unknown): string | undefined {
  const fields = unwrap(cte, 'CommonTableExpr');
  return typeof fields?.ctename === 'string' ? fields.ctename : undefined;
}
