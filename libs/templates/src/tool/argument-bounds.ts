/**
 * How deep and how big a JSON value from a caller may be (tool arguments, meta_tool test
 * arguments, a report document). Checked where the value enters, without recursion, so a
 * value nested 200,000 levels deep is refused in a few milliseconds instead of overflowing
 * the stack of whatever recursive code (ajv, structuredClone, JSON.stringify, a child
 * process channel) would meet it first.
 */
export const MAX_ARGUMENT_DEPTH = 32;
/** Generous for any report filter; a meta_tool proposal carries a source of up to 100 KB. */
export const MAX_ARGUMENT_BYTES = 512 * 1024;

export interface ArgumentBounds {
  maxDepth: number;
  maxBytes: number;
}

const DEFAULT_BOUNDS: ArgumentBounds = {
  maxDepth: MAX_ARGUMENT_DEPTH,
  maxBytes: MAX_ARGUMENT_BYTES,
};

/**
 * Why the value is out of bounds, or undefined. Size is estimated as JSON text (strings and
 * keys by length, every other leaf as a few bytes), and the walk stops at the first excess.
 */
export function argumentBoundsProblem(
  value: unknown,
  bounds: ArgumentBounds = DEFAULT_BOUNDS,
  /** what the value is, for the message */
  what = 'arguments',
): string | undefined {
  const stack: Array<[unknown, number]> = [[value, 0]];
  let bytes = 0;
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node === 'string') bytes += node.length + 2;
    else if (node === null || typeof node !== 'object') bytes += 8;
    else {
      if (depth >= bounds.maxDepth)
        return `${what} are nested more than ${bounds.maxDepth} levels deep; flatten them`;
      bytes += 2;
      if (Array.isArray(node)) {
        for (const item of node) stack.push([item, depth + 1]);
        bytes += node.length;
      } else {
        for (const key of Object.keys(node)) {
          bytes += key.length + 4;
          stack.push([(node as Record<string, unknown>)[key], depth + 1]);
        }
      }
    }
    if (bytes > bounds.maxBytes)
      return `${what} are larger than ${bounds.maxBytes} bytes; send less`;
  }
  return undefined;
}
