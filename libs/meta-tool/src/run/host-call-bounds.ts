import {
  argumentBoundsProblem,
  MAX_ARGUMENT_BYTES as CALL_MAX_BYTES,
  MAX_ARGUMENT_DEPTH as CALL_MAX_DEPTH,
} from '@app/templates';

/**
 * The bounds of the call entry (ToolCallService: 32 levels, 512 KB) on the data calls a
 * sandboxed run makes, both ways. What a child sends is untrusted text: the guest can override
 * `JSON.stringify` inside the engine, and a hostile child can send anything, so the text is
 * measured (length, then nesting, counted without parsing) before `JSON.parse` ever sees it,
 * and the parsed value is bounded like a call's arguments. A result goes back only within the
 * same bounds, so no row (a deep jsonb value, a huge page) crosses into the engine unbounded.
 */

/** The data call's arguments, parsed, or an Error the tool is given (nothing was run). */
export function hostArguments(op: string, text: string): unknown {
  const what = `the arguments of ctx.${op}`;
  if (text.length > CALL_MAX_BYTES)
    throw new Error(
      `${what} are ${text.length} characters of JSON, over the ${CALL_MAX_BYTES} limit; nothing was run`,
    );
  if (jsonNesting(text) > CALL_MAX_DEPTH)
    throw new Error(`${what} are nested more than ${CALL_MAX_DEPTH} levels deep; nothing was run`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${what} are not JSON; nothing was run`);
  }
  const problem = argumentBoundsProblem(value, undefined, what);
  if (problem) throw new Error(`${problem}; nothing was run`);
  return value;
}

/** The JSON text of a data call's result, within the call entry's bounds, or an Error. */
export function hostResultJson(op: string, value: unknown): string {
  const what = `the values in the result of ctx.${op}`;
  const problem = argumentBoundsProblem(value ?? null, undefined, what);
  if (problem) throw new Error(`${problem} (ask for fewer rows or columns)`);
  const json = JSON.stringify(value ?? null);
  if (json.length > CALL_MAX_BYTES)
    throw new Error(
      `the result of ctx.${op} is ${json.length} characters of JSON, over the ${CALL_MAX_BYTES} limit (ask for fewer rows or columns)`,
    );
  return json;
}

/** The deepest nesting of arrays and objects in JSON text, counted without parsing it. */
export function jsonNesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}
