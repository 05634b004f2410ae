import type { SqlGuardRule } from './violations';
import { words } from './words';

/**
 * Parse-tree node types a read-only report query may contain. Any other node (a statement
 * nested where we did not expect one, XML, TABLESAMPLE, a construct added by a future Postgres)
 * is refused: the guard only passes what it understands.
 */
export const ALLOWED_NODE_TYPES: ReadonlySet<string> = new Set(
  words(`
    SelectStmt ResTarget ColumnRef String A_Star A_Const Integer Float Boolean BitString List
    A_Expr BoolExpr FuncCall NamedArgExpr TypeCast TypeName CollateClause SubLink
    RangeVar RangeSubselect RangeFunction JoinExpr Alias ColumnDef SortBy WindowDef
    WithClause CommonTableExpr CTESearchClause CTECycleClause ParamRef
    CaseExpr CaseWhen CoalesceExpr MinMaxExpr NullTest BooleanTest SQLValueFunction
    A_Indirection A_Indices A_ArrayExpr RowExpr GroupingSet GroupingFunc
    JsonValueExpr JsonFormat JsonOutput JsonReturning JsonKeyValue JsonObjectConstructor
    JsonArrayConstructor JsonArrayQueryConstructor JsonAggConstructor JsonObjectAgg
    JsonArrayAgg JsonIsPredicate JsonParseExpr JsonScalarExpr JsonSerializeExpr JsonFuncExpr
    JsonArgument JsonBehavior JsonTable JsonTablePathSpec JsonTableColumn
  `),
);

/** Why some well-known constructs are refused, phrased for the person (or model) fixing the SQL. */
export const REFUSED_CONSTRUCTS: ReadonlyMap<string, [SqlGuardRule, string]> = new Map<
  string,
  [SqlGuardRule, string]
>([
  ['IntoClause', ['select_only', 'SELECT ... INTO creates a table and is not allowed']],
  ['LockingClause', ['select_only', 'FOR UPDATE/SHARE locking clauses are not allowed']],
  ['RangeTableSample', ['construct', 'TABLESAMPLE is not allowed']],
  ['RangeTableFunc', ['construct', 'XMLTABLE is not allowed']],
  ['XmlExpr', ['construct', 'XML functions (xmlelement, xmlparse, ...) are not allowed']],
  ['XmlSerialize', ['construct', 'XMLSERIALIZE is not allowed']],
]);

/** Statement names for messages; others are derived from the node name. */
const STATEMENT_NAMES: ReadonlyMap<string, string> = new Map([
  ['VariableSetStmt', 'SET/RESET'],
  ['VariableShowStmt', 'SHOW'],
  ['TransactionStmt', 'a transaction command (BEGIN/COMMIT/ROLLBACK)'],
  ['CreateStmt', 'CREATE TABLE'],
  ['VacuumStmt', 'VACUUM/ANALYZE'],
  ['DeclareCursorStmt', 'DECLARE CURSOR'],
]);

/** `DeleteStmt` -> `DELETE`, `CreateTableAsStmt` -> `CREATE TABLE AS`. */
export function statementName(nodeType: string): string {
  const known = STATEMENT_NAMES.get(nodeType);
  if (known) return known;
  return nodeType
    .replace(/Stmt$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toUpperCase();
}

export function isStatementNode(nodeType: string): boolean {
  return nodeType.endsWith('Stmt');
}

/**
 * Types a value may be cast to. reg* types (regclass, regproc, regrole, ...) are left out on
 * purpose: casting a string to them looks names up in the system catalogs. User-defined types
 * and domains are left out too: a domain's CHECK can call any function.
 */
export const ALLOWED_TYPES: ReadonlySet<string> = new Set(
  words(`
    bool boolean int2 int4 int8 smallint integer int bigint float4 float8 real numeric decimal
    money text varchar bpchar char name date time timetz timestamp timestamptz interval
    json jsonb jsonpath uuid bytea bit varbit inet cidr macaddr macaddr8 oid xid8
    tsvector tsquery int4range int8range numrange daterange tsrange tstzrange
    int4multirange int8multirange nummultirange datemultirange tsmultirange tstzmultirange
    point line lseg box path polygon circle
  `),
);

/**
 * Operators (and the operator-like names the parser gives BETWEEN) a query may use. Built-in
 * symbols only; an unknown symbol could only resolve to a user-defined operator function.
 */
export const ALLOWED_OPERATORS: ReadonlySet<string> = new Set([
  ...words(`
    = <> != < > <= >= + - * / % ^ |/ ||/ @ & | # ~ << >> ||
    ~~ !~~ ~~* !~~* ~* !~ !~* ^@
    -> ->> #> #>> ? ?| ?& @> <@ && #- @? @@ @@@
    <-> -|- &< &> <<| |>> &<| |&> <^ >^ ?# ?-| ?|| ?- ~= <<= >>= ## @-@ !!
  `),
  'BETWEEN',
  'NOT BETWEEN',
  'BETWEEN SYMMETRIC',
  'NOT BETWEEN SYMMETRIC',
]);

/** Schemas that hold the catalogs. Never readable, whatever the whitelist says. */
export function isSystemSchema(schema: string): boolean {
  return schema === 'information_schema' || schema.startsWith('pg_');
}
