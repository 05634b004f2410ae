import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * Repositories are the only place with SQL: a Kysely query builder call (`selectFrom`,
 * `insertInto`, `updateTable`, `deleteFrom`, ...) or a `sql` tagged template (under any alias,
 * with or without a type argument) outside a `*.repository.ts` file and db/migrations/ fails,
 * naming the file and line. Found in the syntax tree, so comments and strings do not count.
 */
const ROOT = path.resolve(__dirname, '../../..');

/**
 * Files allowed SQL outside a repository, each with why. Empty: add an entry only for SQL
 * that is not metadata and has no repository to live in, and say why here.
 */
const ALLOWED: ReadonlyMap<string, string> = new Map();

const BUILDER_METHODS = new Set([
  'selectFrom',
  'insertInto',
  'updateTable',
  'deleteFrom',
  'replaceInto',
  'mergeInto',
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory())
      return ['node_modules', 'dist', 'migrations'].includes(entry.name) ? [] : sourceFiles(rel);
    return rel.endsWith('.ts') && !/spec/.test(entry.name) ? [rel] : [];
  });
}

/** The local names of Kysely's `sql` in `source` (`import { sql as q } from 'kysely'`). */
function sqlNames(source: ts.SourceFile): Set<string> {
  const names = new Set(['sql']);
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const element of bindings.elements)
      if ((element.propertyName ?? element.name).text === 'sql') names.add(element.name.text);
  }
  return names;
}

/** A `sql` tag (any alias, `sql<T>` too) or a Kysely builder call; undefined for anything else. */
function sqlKind(node: ts.Node, sqlTags: Set<string>): string | undefined {
  if (
    ts.isTaggedTemplateExpression(node) &&
    ts.isIdentifier(node.tag) &&
    sqlTags.has(node.tag.text)
  )
    return 'sql`...`';
  if (
    ts.isCallExpression(node) &&
    ts.isPropertyAccessExpression(node.expression) &&
    BUILDER_METHODS.has(node.expression.name.text)
  )
    return `${node.expression.name.text}(...)`;
  return undefined;
}

/** `file:line kind` for each SQL statement of the TypeScript source `text`. */
function sqlStatements(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const sqlTags = sqlNames(source);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const kind = sqlKind(node, sqlTags);
    if (kind) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${file}:${line + 1} ${kind}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('architecture', () => {
  it('finds a builder call and a sql tag, and nothing in comments or strings', () => {
    const text = [
      '// db.selectFrom("x") in a comment',
      'const s = "sql`SELECT 1`";',
      'await db.withSchema("gateway").selectFrom("roles").execute();',
      "import { sql as kysql } from 'kysely';",
      'await kysql<{ n: number }>`SELECT 1`.execute(db);',
      'await sql`SELECT 2`.execute(db);',
    ].join('\n');
    expect(sqlStatements('x.ts', text)).toEqual([
      'x.ts:3 selectFrom(...)',
      'x.ts:5 sql`...`',
      'x.ts:6 sql`...`',
    ]);
  });

  it('has SQL only in repositories and migrations', () => {
    const outside = ['apps', 'libs', 'db']
      .flatMap((dir) => sourceFiles(dir))
      .filter((file) => !file.endsWith('.repository.ts') && !ALLOWED.has(file))
      .flatMap((file) => sqlStatements(file, readFileSync(path.join(ROOT, file), 'utf8')));
    expect(outside).toEqual([]);
  });
});

/** The relative imports (type-only included) of a file, as repo-relative .ts paths. */
function localImports(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const targets: string[] = [];
  for (const statement of source.statements) {
    const specifier =
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
        ? statement.moduleSpecifier.text
        : undefined;
    if (!specifier?.startsWith('.')) continue;
    const base = path.join(path.dirname(file), specifier);
    targets.push(base.endsWith('.ts') ? base : `${base}.ts`, path.join(base, 'index.ts'));
  }
  return targets;
}

/** Every cycle of the import graph, each as the files around it (depth-first, Tarjan-free). */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

describe('module structure', () => {
  it('finds a cycle, type-only or not', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(importCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
    expect(
      importCycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('has no import cycles in apps/, libs/ or db/: a type lives with the module that owns it', () => {
    const files = ['apps', 'libs', 'db'].flatMap((dir) => sourceFiles(dir));
    const graph = new Map(
      files.map((file) => [file, localImports(file, readFileSync(path.join(ROOT, file), 'utf8'))]),
    );
    expect(importCycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });
});
