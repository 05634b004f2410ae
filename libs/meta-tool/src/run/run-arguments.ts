import type { SandboxOutcome } from './sandbox/sandbox';

/** arguments deeper than this, or larger than MAX_ARGUMENT_BYTES as JSON, are refused */
export const MAX_ARGUMENT_DEPTH = 64;
export const MAX_ARGUMENT_BYTES = 256 * 1024;

/** Depth and size of a JSON-like value, without recursion (a 200,000-level value is fine). */
export function argumentProblem(value: unknown): string | undefined {
  const stack: Array<[unknown, number]> = [[value, 1]];
  let nodes = 0;
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (depth > MAX_ARGUMENT_DEPTH)
      return `the arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep`;
    if (++nodes > 100_000) return 'the arguments have more than 100,000 values';
    if (v && typeof v === 'object') {
      for (const child of Object.values(v as Record<string, unknown>))
        stack.push([child, depth + 1]);
    }
  }
  return undefined;
}

/**
 * A call's arguments as the JSON handed to the sandbox, or the outcome refusing them (too
 * deep, too many values, too large) before anything runs.
 */
export function argumentsJson(args: unknown): string | Extract<SandboxOutcome, { ok: false }> {
  const problem = argumentProblem(args);
  if (problem) return { ok: false, stage: 'arguments', message: `${problem}; nothing was run` };
  const json = JSON.stringify(args ?? {});
  if (json.length > MAX_ARGUMENT_BYTES)
    return {
      ok: false,
      stage: 'arguments',
      message: `the arguments are ${json.length} characters of JSON, over the ${MAX_ARGUMENT_BYTES} limit; nothing was run`,
    };
  return json;
}
