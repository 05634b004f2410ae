import type { LoadResult } from './load';
import { median } from './stats';

export interface Side {
  name: string;
  run: () => Promise<LoadResult>;
}

/**
 * Runs every side once per round, rotating the order each round (A B, B A, ...), so drift
 * (thermal, background work, a growing table) hits every side alike.
 */
export async function alternate(
  rounds: number,
  sides: Side[],
  onRound?: (round: number, results: Map<string, LoadResult>) => void,
): Promise<Map<string, LoadResult[]>> {
  const all = new Map<string, LoadResult[]>(sides.map((s) => [s.name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = sides.map((_, i) => sides[(i + round) % sides.length]);
    const results = new Map<string, LoadResult>();
    for (const side of order) {
      const result = await side.run();
      results.set(side.name, result);
      all.get(side.name)?.push(result);
    }
    onRound?.(round, results);
  }
  return all;
}

/** The median over rounds of a per-round ratio a/b (paired, so drift cancels). */
export function pairedRatio(
  a: LoadResult[],
  b: LoadResult[],
  metric: (r: LoadResult) => number,
): number {
  return median(a.map((r, i) => metric(r) / metric(b[i])));
}

export function medianOf(results: LoadResult[], metric: (r: LoadResult) => number): number {
  return median(results.map(metric));
}
