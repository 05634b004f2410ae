import { SqlGuard } from '@app/templates';
import type { SqlWhitelist } from '@app/templates';
import { parse } from 'acorn';
import type { Node } from 'acorn';
import {
  GENERATED_NAME_PATTERN,
  MAX_DESCRIPTION_CHARS,
  MAX_NAME_CHARS,
  MAX_SOURCE_BYTES,
} from '../contract';
import type { GateViolation } from '../contract';
import { hasDefaultExport, imports, queryLiterals } from './module-syntax';
import type { QueryLiteral } from './module-syntax';

const guard = new SqlGuard();

export interface StaticGateInput {
  name: string;
  code: string;
  description?: string;
  /** names a generated tool may never take: built-ins */
  reservedNames: ReadonlySet<string>;
  whitelist: SqlWhitelist;
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
  const naming = nameViolation(name, input.reservedNames);
  if (naming) violations.push(naming);
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
  violations.push(...programViolations(program, input.whitelist));
  return violations;
}

/** Why the name is refused (its shape, or a clash with a built-in or a report); or undefined. */
function nameViolation(name: string, reserved: ReadonlySet<string>): GateViolation | undefined {
  if (name.length > MAX_NAME_CHARS)
    return {
      rule: 'name',
      message: `name is ${name.length} characters; a tool name may have at most ${MAX_NAME_CHARS} (the providers' limit)`,
    };
  if (!GENERATED_NAME_PATTERN.test(name))
    return {
      rule: 'name',
      message: `name must match ^[a-z][a-z0-9_]*$; got ${JSON.stringify(name)}`,
    };
  if (reserved.has(name))
    return {
      rule: 'name_clash',
      message: `name "${name}" is a built-in tool; choose another name`,
    };
  if (name.startsWith('query_report_'))
    return {
      rule: 'name_clash',
      message: `names starting with query_report_ belong to reports; got "${name}"`,
    };
  return undefined;
}

/** What the parsed module does wrong: no default export, imports, SQL the guard refuses. */
function programViolations(
  program: Node,
  whitelist: StaticGateInput['whitelist'],
): GateViolation[] {
  const violations: GateViolation[] = [];
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
    const refusal = sqlRefusal(literal, whitelist);
    if (refusal) violations.push(refusal);
  }
  return violations;
}

/** The guard's refusal of a SQL literal, as a violation; undefined when it passes. */
function sqlRefusal(
  literal: QueryLiteral,
  whitelist: StaticGateInput['whitelist'],
): GateViolation | undefined {
  const verdict = guard.check({
    sql: literal.sql,
    whitelist,
    declaredParams: [],
    parameterStyle: 'positional',
    requireAllDeclaredUsed: false,
  });
  if (verdict.ok) return undefined;
  const reasons = verdict.errors.map((e) => `${e.rule}: ${e.message}`).join('; ');
  return {
    rule: 'sql',
    message: `the SQL passed to query() on line ${literal.line} is refused (${reasons}); got ${JSON.stringify(literal.sql)}`,
  };
}
