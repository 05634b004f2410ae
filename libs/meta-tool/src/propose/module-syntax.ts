import type { Node } from 'acorn';
import { simple } from 'acorn-walk';

/*
 * What the static gate reads from a generated tool's parsed module (acorn's syntax tree):
 * its imports, its default export, the SQL literals it hands to `.query(...)`.
 */

/** A SQL literal handed to `.query(...)` and its line. */
export interface QueryLiteral {
  sql: string;
  line: number;
}

/** Where the module reaches outside itself: imports, re-exports, import(), import.meta. */
export function imports(program: Node): Array<{ line: number; what: string }> {
  const found: Array<{ line: number; what: string }> = [];
  const line = (node: Node) => (node as { loc?: { start: { line: number } } }).loc?.start.line ?? 0;
  simple(program, {
    ImportDeclaration(node) {
      const source = (node as unknown as { source: { value: unknown } }).source.value;
      found.push({ line: line(node), what: `import of ${JSON.stringify(source)}` });
    },
    ImportExpression(node) {
      found.push({ line: line(node), what: 'import()' });
    },
    ExportAllDeclaration(node) {
      found.push({ line: line(node), what: 'export … from' });
    },
    ExportNamedDeclaration(node) {
      if ((node as unknown as { source?: unknown }).source)
        found.push({ line: line(node), what: 'export … from' });
    },
    MetaProperty(node) {
      if ((node as unknown as { meta: { name: string } }).meta.name === 'import')
        found.push({ line: line(node), what: 'import.meta' });
    },
  });
  return found;
}

/** Whether the module has a default export (declared or as `export { x as default }`). */
export function hasDefaultExport(program: Node): boolean {
  let found = false;
  simple(program, {
    ExportDefaultDeclaration() {
      found = true;
    },
    ExportNamedDeclaration(node) {
      const specifiers = (
        node as unknown as { specifiers: Array<{ exported: { name?: string; value?: string } }> }
      ).specifiers;
      if (specifiers.some((s) => (s.exported.name ?? s.exported.value) === 'default')) found = true;
    },
  });
  return found;
}

/** String literals (and template literals without `${}`) passed first to any `.query(...)`. */
export function queryLiterals(program: Node): QueryLiteral[] {
  const found: QueryLiteral[] = [];
  simple(program, {
    CallExpression(node) {
      const call = node as unknown as {
        callee: { type: string; property?: { type: string; name?: string } };
        arguments: Array<{
          type: string;
          value?: unknown;
          expressions?: unknown[];
          quasis?: Array<{ value: { cooked: string } }>;
        }>;
        loc?: { start: { line: number } };
      };
      if (call.callee.type !== 'MemberExpression' || call.callee.property?.name !== 'query') return;
      const first = call.arguments[0];
      const line = call.loc?.start.line ?? 0;
      if (first?.type === 'Literal' && typeof first.value === 'string')
        found.push({ sql: first.value, line });
      if (first?.type === 'TemplateLiteral' && first.expressions?.length === 0 && first.quasis) {
        found.push({ sql: first.quasis.map((q) => q.value.cooked).join(''), line });
      }
    },
  });
  return found;
}
