import { LRUCache } from 'lru-cache';

/**
 * One frozen copy of equal JSON values (tool schemas) across every report tool, so a catalog
 * of 100,000 tools does not hold 100,000 copies of `{ "type": "integer", "minimum": 1 }` (issue
 * 17: per report only what serving needs). Objects and arrays are shared from the leaves up:
 * two schemas that differ in one filter still share their `page` and `page_size` properties.
 * Bounded: the least recently shared values are forgotten (tools holding them keep them).
 */
export class ValuePool {
  private readonly held: LRUCache<string, object>;

  constructor(max: number) {
    this.held = new LRUCache({ max });
  }

  get size(): number {
    return this.held.size;
  }

  /** The pool's frozen copy of `value` (deeply equal, never changed afterwards). */
  share<T>(value: T): T {
    if (value === null || typeof value !== 'object') return value;
    const copy: Record<string, unknown> | unknown[] = Array.isArray(value)
      ? value.map((v: unknown) => this.share(v))
      : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.share(v)]));
    const key = JSON.stringify(copy);
    const held = this.held.get(key);
    if (held) return held as T;
    Object.freeze(copy);
    this.held.set(key, copy);
    return copy as T;
  }
}

/** The tool schemas of every report tool of the process (ReportTool). */
export const SCHEMAS = new ValuePool(5_000);

/**
 * A flat copy of a string built by concatenation: V8 keeps `a + b` as a tree of pieces (32
 * bytes each, plus the pieces) until something flattens it, and a flattened tree keeps its
 * root. A rendered SQL text of 16 pieces costs about three times its flat size.
 */
export function flatString(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}
