/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): each ranked list gives
 * an item `weight / (k + rank)`, rank 1-based; the sums order the fused list. Ranks, not
 * scores, are combined, so BM25 scores (unbounded) and cosine similarities (-1..1) need no
 * common scale. Pure.
 */
export interface RankedList {
  /** item names, best first */
  names: readonly string[];
  weight: number;
}

export interface FusedItem {
  name: string;
  score: number;
}

/** Fuses ranked lists; ties go by name so the result is deterministic. */
export function reciprocalRankFusion(lists: readonly RankedList[], k: number): FusedItem[] {
  const scores = new Map<string, number>();
  for (const list of lists) {
    if (list.weight <= 0) continue;
    list.names.forEach((name, i) =>
      scores.set(name, (scores.get(name) ?? 0) + list.weight / (k + i + 1)),
    );
  }
  return [...scores.entries()]
    .map(([name, score]) => ({ name, score }))
    .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
