import { isIdentityParam } from '../../model/identity';
import { findPlaceholders } from '../sql-binding';
import type { Placeholder } from '../sql-binding';
import type { SqlToken } from '../sql-lexer';
import type { ViolationSink } from './violations';

export type ParameterStyle = 'named' | 'positional';

export interface ParameterPolicy {
  declaredParams: readonly string[];
  parameterStyle: ParameterStyle;
  requireAllDeclaredUsed: boolean;
}

/** The SQL as Postgres would receive it: each `:name` replaced by a positional `$n`. */
export interface PositionalSql {
  text: string;
  /** `$n` the text should contain: hand-written ones plus one per placeholder occurrence */
  expectedParams: number;
}

/**
 * `:name` is not Postgres syntax, so it is rewritten to `$n` before parsing, as bindTemplate
 * will do before execution. Written without padding on purpose: if `$n` glued to the previous
 * token would read differently (`foo:bar` -> `foo$1`, one identifier), the parse shows it.
 */
export function toPositional(
  sql: string,
  tokens: readonly SqlToken[],
  placeholders: readonly Placeholder[],
): PositionalSql {
  const handWritten = tokens.filter((t) => t.kind === 'PARAM');
  let next = Math.max(0, ...handWritten.map((t) => Number(t.text.slice(1)) || 0));
  const numbers = new Map<string, number>();
  let text = '';
  let cursor = 0;
  for (const p of placeholders) {
    let n = numbers.get(p.name);
    if (n === undefined) numbers.set(p.name, (n = ++next));
    text += `${sql.slice(cursor, p.start)}$${n}`;
    cursor = p.end;
  }
  text += sql.slice(cursor);
  return { text, expectedParams: handWritten.length + placeholders.length };
}

/** Placeholders must be declared (or identity-bound), declared ones used, `$n` only if allowed. */
export function checkParameters(
  tokens: readonly SqlToken[],
  placeholders: readonly Placeholder[],
  policy: ParameterPolicy,
  sink: ViolationSink,
): void {
  if (policy.parameterStyle === 'named') {
    for (const text of new Set(tokens.filter((t) => t.kind === 'PARAM').map((t) => t.text))) {
      sink.add('parameters', `use :name placeholders, not positional parameters (found ${text})`);
    }
  }
  const declared = new Set(policy.declaredParams.map((n) => n.toLowerCase()));
  const used = new Set(placeholders.map((p) => p.name));
  const declaredList = [...declared].map((n) => `:${n}`).join(', ') || 'none';
  for (const name of used) {
    if (!declared.has(name) && !isIdentityParam(name)) {
      sink.add(
        'parameters',
        `:${name} is not a declared parameter (declared: ${declaredList}; ` +
          ':tenant_id, :user_id and :claim_* are always available)',
      );
    }
  }
  if (!policy.requireAllDeclaredUsed) return;
  for (const name of declared) {
    if (!used.has(name)) sink.add('parameters', `declared filter :${name} is never used`);
  }
}

/**
 * The `:names` a text uses, for callers that declare whatever the SQL uses (the CLI, tests).
 * Text the scanner cannot read yields none; SqlGuard.check then reports the parse error.
 */
export function placeholderNames(sql: string): string[] {
  try {
    return [...new Set(findPlaceholders(sql).map((p) => p.name))];
  } catch {
    return [];
  }
}
