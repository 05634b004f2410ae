import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import type { StageMap } from '../../../test/support/architecture/stage-map';

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

function sourceFiles(dir: string, ext = /\.ts$/): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory())
      return ['node_modules', 'dist', 'migrations'].includes(entry.name)
        ? []
        : sourceFiles(rel, ext);
    return ext.test(rel) && !/spec|\.d\.ts$/.test(entry.name) ? [rel] : [];
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

/** Most source files a folder may hold side by side, and most lines a source file may have (#43). */
const MAX_FOLDER_FILES = 15;
const MAX_FILE_LINES = 260;

const ALL_SOURCES = /\.tsx?$/;
const STAGE_MAPS = path.join(ROOT, 'test/support/architecture');

/** Each library's stage map (`*.stages.json` beside the StageMap type). */
function stageMaps(): StageMap[] {
  return readdirSync(STAGE_MAPS)
    .filter((name) => name.endsWith('.stages.json'))
    .map((name) => JSON.parse(readFileSync(path.join(STAGE_MAPS, name), 'utf8')) as StageMap);
}

/** `from -> to` for each import of a staged library that crosses stages against its map. */
export function stageViolations(map: StageMap, graph: ReadonlyMap<string, readonly string[]>) {
  const stageOf = (file: string): string | undefined => {
    const rel = path.relative(map.root, file);
    if (rel.startsWith('..')) return undefined;
    const parts = rel.split(path.sep);
    return parts.length === 1 ? '' : parts[0];
  };
  const found: string[] = [];
  for (const [from, targets] of graph) {
    const own = stageOf(from);
    if (own === undefined || own === '') continue;
    for (const to of targets) {
      if (!graph.has(to)) continue;
      const other = stageOf(to);
      if (other === undefined || other === own) continue;
      const allowed =
        other === ''
          ? (map.shared ?? []).includes(path.basename(to))
          : (map.stages[own] ?? []).includes(other);
      if (!allowed) found.push(`${from} -> ${to}`);
    }
  }
  return found;
}

describe('a tree a newcomer can walk (#43)', () => {
  const files = ['apps', 'libs', 'db'].flatMap((dir) => sourceFiles(dir, ALL_SOURCES));

  it(`holds at most ${MAX_FOLDER_FILES} source files in a folder (tests aside)`, () => {
    const counts = new Map<string, number>();
    for (const file of files)
      counts.set(path.dirname(file), (counts.get(path.dirname(file)) ?? 0) + 1);
    const crowded = [...counts]
      .filter(([, n]) => n > MAX_FOLDER_FILES)
      .map(([dir, n]) => `${dir}: ${n}`);
    expect(crowded).toEqual([]);
  });

  it(`has no source file over ${MAX_FILE_LINES} lines`, () => {
    const long = files
      .map(
        (file) =>
          [file, readFileSync(path.join(ROOT, file), 'utf8').split('\n').length - 1] as const,
      )
      .filter(([, lines]) => lines > MAX_FILE_LINES)
      .map(([file, lines]) => `${file}: ${lines}`);
    expect(long).toEqual([]);
  });

  it('finds an import that crosses stages against the map', () => {
    const map: StageMap = {
      root: 'lib',
      stages: { load: [], judge: ['load'] },
      shared: ['errors.ts'],
    };
    const graph = new Map([
      ['lib/judge/a.ts', ['lib/load/b.ts', 'lib/errors.ts']],
      ['lib/load/b.ts', ['lib/judge/a.ts', 'lib/index.ts']],
      ['lib/index.ts', ['lib/judge/a.ts']],
      ['lib/errors.ts', []],
    ]);
    expect(stageViolations(map, graph)).toEqual([
      'lib/load/b.ts -> lib/judge/a.ts',
      'lib/load/b.ts -> lib/index.ts',
    ]);
  });

  it('keeps every staged library to the directions of its map', () => {
    const tsFiles = files.filter((file) => file.endsWith('.ts'));
    const graph = new Map(
      tsFiles.map((file) => [
        file,
        localImports(file, readFileSync(path.join(ROOT, file), 'utf8')),
      ]),
    );
    const violations = stageMaps().flatMap((map) => {
      const unknown = Object.values(map.stages)
        .flat()
        .filter((stage) => !(stage in map.stages));
      return [
        ...unknown.map((stage) => `${map.root}: unknown stage ${stage}`),
        ...stageViolations(map, graph),
      ];
    });
    expect(violations).toEqual([]);
  });
});
