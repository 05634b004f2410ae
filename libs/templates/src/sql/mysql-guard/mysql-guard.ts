import { Parser } from 'node-sql-parser';
import { MYSQL_AGGREGATES, MYSQL_FUNCTIONS } from './mysql-functions';
import { lexMysql } from './mysql-lexer';

/** What a report on a MySQL-protocol source may read: its database and listed tables. */
export interface MysqlScope {
  database: string;
  tables: readonly string[];
}

export type MysqlVerdict =
  { ok: true; text: string; params: string[] } | { ok: false; problems: string[] };

const SYSTEM_SCHEMAS = new Set(['information_schema', 'mysql', 'performance_schema', 'sys']);
const parser = new Parser();

/**
 * The MySQL-dialect SQL guard (issue #42), fail closed: exactly one SELECT (CTEs, joins,
 * subqueries, window functions allowed); tables only from the source's list, qualified by the
 * source's own database or not at all; no system schema; functions only from an allowlist (no
 * SLEEP, BENCHMARK, LOAD_FILE, GET_LOCK, no user-defined function); no INTO OUTFILE/DUMPFILE/@var,
 * no locking clause; executable comments, hints, variables and assignments refused by the lexer
 * before any parser sees the text. `:name` parameters come back as `?` placeholders in order.
 * Anything node-sql-parser cannot parse is refused, saying so.
 */
export function checkMysqlTemplate(sql: string, scope: MysqlScope): MysqlVerdict {
  const lexed = lexMysql(sql);
  if (lexed.problems.length > 0) return { ok: false, problems: lexed.problems };
  let ast: unknown;
  let tables: string[];
  try {
    ast = parser.astify(lexed.parseText, { database: 'MariaDB' });
    tables = parser.tableList(lexed.parseText, { database: 'MariaDB' });
  } catch (err) {
    const reason = (err as Error).message.split('\n')[0].slice(0, 200);
    return { ok: false, problems: [`the template is not SQL the guard can read (${reason})`] };
  }
  const statements = Array.isArray(ast) ? ast : [ast];
  if (statements.length !== 1) return { ok: false, problems: ['more than one statement'] };
  const [statement] = statements as Array<Record<string, unknown>>;
  if (statement.type !== 'select')
    return {
      ok: false,
      problems: [`only SELECT is allowed, not ${String(statement.type).toUpperCase()}`],
    };
  const problems = new Set<string>();
  const ctes = new Set<string>();
  walk(statement, (node) => {
    for (const cte of asArray(node.with)) {
      const name = (cte as { name?: { value?: unknown } }).name?.value;
      if (typeof name === 'string') ctes.add(name);
    }
  });
  for (const entry of tables) {
    const [kind, db, table] = entry.split('::');
    if (kind !== 'select') problems.add(`a ${kind} of ${table}`);
    else problems.add(tableProblem(db === 'null' ? null : db, table, scope, ctes) ?? '');
  }
  walk(statement, (node) => nodeProblems(node, scope, ctes).forEach((p) => problems.add(p)));
  problems.delete('');
  if (problems.size > 0) return { ok: false, problems: [...problems] };
  return { ok: true, text: lexed.boundText.trim(), params: lexed.params };
}

function nodeProblems(
  node: Record<string, unknown>,
  scope: MysqlScope,
  ctes: ReadonlySet<string>,
): string[] {
  const found: string[] = [];
  if (node.type === 'function') {
    const ref = node.name as { name?: unknown; schema?: { value?: unknown } } | undefined;
    const parts = asArray(ref?.name).map((p) => String((p as { value?: unknown }).value ?? ''));
    if (ref?.schema) parts.unshift(String(ref.schema.value ?? ''));
    const name = parts.join('.').toUpperCase();
    if (parts.length !== 1) found.push(`function ${name}: a qualified (user-defined) function`);
    else if (!MYSQL_FUNCTIONS.has(name)) found.push(`function ${name} is not allowed`);
  }
  if (node.type === 'aggr_func' && !MYSQL_AGGREGATES.has(String(node.name).toUpperCase()))
    found.push(`aggregate ${String(node.name)} is not allowed`);
  if (node.type === 'var' || node.type === 'assign') found.push('a variable or an assignment');
  const into = node.into as { position?: unknown; type?: unknown } | null | undefined;
  if (into && (into.position || into.type)) found.push('SELECT ... INTO (a file or a variable)');
  if (node.locking_read || node.for_update || node.lock_in_share_mode)
    found.push('a locking clause (FOR UPDATE, LOCK IN SHARE MODE)');
  if (node.type === 'column_ref' && typeof node.db === 'string' && node.db !== scope.database)
    found.push(`a column of another database (${node.db})`);
  if (
    'table' in node &&
    'db' in node &&
    typeof node.table === 'string' &&
    node.type !== 'column_ref'
  ) {
    const problem = tableProblem(node.db as string | null, node.table, scope, ctes);
    if (problem) found.push(problem);
  }
  return found;
}

function tableProblem(
  db: string | null,
  table: string,
  scope: MysqlScope,
  ctes: ReadonlySet<string>,
): string | undefined {
  if (db !== null && SYSTEM_SCHEMAS.has(db.toLowerCase()))
    return `the system schema ${db} (${db}.${table})`;
  if (db !== null && db !== scope.database) return `table ${db}.${table}: another database`;
  if (db === null && ctes.has(table)) return undefined;
  if (!scope.tables.includes(table))
    return `table ${table} is not in the source's list (allowed: ${scope.tables.join(', ')})`;
  return undefined;
}

/** Every object node of the AST, depth first. */
function walk(node: unknown, visit: (n: Record<string, unknown>) => void, depth = 0): void {
  if (depth > 200) throw new Error('the template nests too deep');
  if (Array.isArray(node)) {
    for (const item of node) walk(item, visit, depth + 1);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  visit(node as Record<string, unknown>);
  for (const value of Object.values(node)) walk(value, visit, depth + 1);
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
