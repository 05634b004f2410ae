import { SqlGuard } from '@app/templates';
import type { SqlWhitelist } from '@app/templates';
import { parse } from 'acorn';
import type { Node } from 'acorn';
import { simple } from 'acorn-walk';
import {
  GENERATED_NAME_PATTERN,
  MAX_DESCRIPTION_CHARS,
  MAX_NAME_CHARS,
  MAX_SOURCE_BYTES,
} from './contract';
import type { GateViolation } from './contract';

const guard = new SqlGuard();

export interface StaticGateInput {
  name: string;
  code: string;
  description?: string;
  /** names a generated tool may never take: built-ins */
  reservedNames: ReadonlySet<string>;
  whitelist: SqlWhitelist;
}

interface QueryLiteral {
  sql: string;
  line: number;
}

/**
 * The static gate: checks that cost no execution. Name, size, clashes, that the module
 * parses and has a default export, and that every SQL literal it hands to `*.query(...)`
 * passes the SQL guard. Errors name the rule and the value received.
 */
export function staticGate(input: StaticGateInput): GateViolation[] {
  const violations: GateViolation[] = [];
  const { name, code } = input;
  if (typeof name !== 'string' || typeof code !== 'string') {
    return [{ rule: 'contract', message: 'name and code must be strings' }];
  }
  if (name.length > MAX_NAME_CHARS) {
    violations.push({
      rule: 'name',
      message: `name is ${name.length} characters; a tool name may have at most ${MAX_NAME_CHARS} (the providers' limit)`,
    });
  } else if (!GENERATED_NAME_PATTERN.test(name)) {
    violations.push({
      rule: 'name',
      message: `name must match ^[a-z][a-z0-9_]*$; got ${JSON.stringify(name)}`,
    });
  } else if (input.reservedNames.has(name)) {
    violations.push({
      rule: 'name_clash',
      message: `name "${name}" is a built-in tool; choose another name`,
    });
  } else if (name.startsWith('query_report_')) {
    violations.push({
      rule: 'name_clash',
      message: `names starting with query_report_ belong to reports; got "${name}"`,
    });
  }
  if (input.description !== undefined && input.description.length > MAX_DESCRIPTION_CHARS) {
    violations.push({
      rule: 'description',
      message: `the description is ${input.description.length} characters; the limit is ${MAX_DESCRIPTION_CHARS}`,
    });
  }
  const bytes = Buffer.byteLength(code, 'utf8');
  if (bytes > MAX_SOURCE_BYTES) {
    violations.push({
      rule: 'size',
      message: `the source is ${bytes} bytes; the limit is ${MAX_SOURCE_BYTES}`,
    });
    return violations;
  }
  let program: Node;
  try {
    program = parse(code, { ecmaVersion: 'latest', sourceType: 'module', locations: true });
  } catch (err) {
    violations.push({
      rule: 'syntax',
      message: `the code does not parse as an ES module: ${err instanceof Error ? err.message : String(err)}`,
    });
    return violations;
  }
  if (!hasDefaultExport(program)) {
    violations.push({
      rule: 'contract',
      message:
        'the module has no default export; it must `export default { name, description, schema, run }`',
    });
  }
  for (const found of imports(program)) {
    violations.push({
      rule: 'import',
      message: `line ${found.line}: ${found.what} is not allowed: a generated tool has no host modules (no node:*, no packages, no URLs); its only doors are ctx.report, ctx.query and ctx.user`,
    });
  }
  for (const literal of queryLiterals(program)) {
    const verdict = guard.check({
      sql: literal.sql,
      whitelist: input.whitelist,
      declaredParams: [],
      parameterStyle: 'positional',
      requireAllDeclaredUsed: false,
    });
    if (!verdict.ok) {
      const reasons = verdict.errors.map((e) => `${e.rule}: ${e.message}`).join('; ');
      violations.push({
        rule: 'sql',
        message: `the SQL passed to query() on line ${literal.line} is refused (${reasons}); got ${JSON.stringify(literal.sql)}`,
      });
    }
  }
  return violations;
}

function imports(program: Node): Array<{ line: number; what: string }> {
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

function hasDefaultExport(program: Node): boolean {
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
function queryLiterals(program: Node): QueryLiteral[] {
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
