/**
 * The semantic signal: each tool as the weighted mean of its words' vectors, each question
 * likewise; tools ranked by cosine similarity. It finds "how full are our hotels" for "Room
 * occupancy" where no word is shared. Words are weighted by how rare they are in the tenant's
 * catalog (inverse document frequency), so "month" or "split", which every report says, do not
 * make all reports look alike. Pure: no I/O; the vector table is handed in.
 */
import type { SearchDoc } from './search-doc';
import { isStopWord, words } from '../words/text';
import { normalise } from '../words/word-vectors';
import type { WordVectors } from '../words/word-vectors';

/** How much each part of a tool's metadata says about what it answers. */
const FIELD_WEIGHTS: Array<[keyof SearchDoc, number]> = [
  ['title', 3],
  ['synonyms', 2],
  ['examples', 1.5],
  ['description', 1],
  ['values', 1],
  ['filters', 0.5],
  ['fields', 0.5],
];

/** An earlier user turn counts this much less per turn back (the last one counts fully). */
const TURN_WEIGHTS = [1, 0.3, 0.1];

export interface SemanticHit {
  name: string;
  /** cosine similarity, -1..1 */
  score: number;
}

interface HeldDoc {
  signature: string;
  /** word -> summed field weight */
  words: Map<string, number>;
}

/** One tenant's tools as vectors; `sync` keeps it in step with the lexical index. */
export class SemanticIndex {
  private readonly docs = new Map<string, HeldDoc>();
  /** how many tools use each word (any field): the IDF */
  private readonly df = new Map<string, number>();
  /** tool vectors, rebuilt on the first search after a change (IDF moves with the catalog) */
  private matrix: { names: string[]; vectors: Float32Array } | undefined;

  constructor(readonly vectors: WordVectors) {}

  get size(): number {
    return this.docs.size;
  }

  sync(docs: Iterable<SearchDoc>): void {
    const seen = new Set<string>();
    for (const doc of docs) {
      seen.add(doc.name);
      const held = this.docs.get(doc.name);
      if (held?.signature === doc.signature) continue;
      if (held) this.count(held, -1);
      const entry = { signature: doc.signature, words: docWords(doc) };
      this.count(entry, 1);
      this.docs.set(doc.name, entry);
      this.matrix = undefined;
    }
    for (const [name, held] of this.docs) {
      if (seen.has(name)) continue;
      this.count(held, -1);
      this.docs.delete(name);
      this.matrix = undefined;
    }
  }

  private count(doc: HeldDoc, delta: number): void {
    for (const w of doc.words.keys()) this.df.set(w, (this.df.get(w) ?? 0) + delta);
  }

  /** Rare in this catalog weighs more; a word no tool uses weighs as much as the rarest. */
  private idf(word: string): number {
    return Math.log(1 + this.docs.size / Math.max(1, this.df.get(word) ?? 0));
  }

  private embed(weighted: Map<string, number>): Float32Array {
    const v = new Float32Array(this.vectors.dims);
    for (const [word, weight] of weighted) this.vectors.addTo(v, word, weight * this.idf(word));
    return normalise(v);
  }

  private built(): { names: string[]; vectors: Float32Array } {
    if (this.matrix) return this.matrix;
    const names = [...this.docs.keys()].sort();
    const dims = this.vectors.dims;
    const vectors = new Float32Array(names.length * dims);
    names.forEach((name, i) => vectors.set(this.embed(this.docs.get(name)!.words), i * dims));
    this.matrix = { names, vectors };
    return this.matrix;
  }

  /** The question's vector: its turns' words, the last turn weighing most. */
  queryVector(userTurns: readonly string[]): Float32Array | undefined {
    const weighted = new Map<string, number>();
    userTurns
      .slice()
      .reverse()
      .forEach((text, back) => {
        const weight = TURN_WEIGHTS[Math.min(back, TURN_WEIGHTS.length - 1)];
        for (const word of words(text))
          if (!isStopWord(word) && this.vectors.has(word))
            weighted.set(word, Math.max(weighted.get(word) ?? 0, weight));
      });
    if (weighted.size === 0) return undefined;
    return this.embed(weighted);
  }

  /** Tools by similarity to the conversation, only `allowed` ones; ties go by name. */
  search(
    userTurns: readonly string[],
    allowed: (name: string) => boolean,
    limit: number,
  ): SemanticHit[] {
    const query = this.queryVector(userTurns);
    if (!query) return [];
    const { names, vectors } = this.built();
    const dims = this.vectors.dims;
    // the best `limit` kept in order as they come: no sort of the whole catalog per query
    const top: SemanticHit[] = [];
    for (let i = 0; i < names.length; i++) {
      let score = 0;
      const base = i * dims;
      for (let d = 0; d < dims; d++) score += query[d] * vectors[base + d];
      if (top.length === limit && score <= top[top.length - 1].score) continue;
      if (!allowed(names[i])) continue;
      // names are sorted: on equal scores the earlier name stays first
      let at = top.length;
      while (at > 0 && top[at - 1].score < score) at--;
      top.splice(at, 0, { name: names[i], score });
      if (top.length > limit) top.pop();
    }
    return top;
  }
}

function docWords(doc: SearchDoc): Map<string, number> {
  const out = new Map<string, number>();
  for (const [field, weight] of FIELD_WEIGHTS) {
    const value = doc[field];
    const text = Array.isArray(value) ? value.join(' ') : String(value);
    for (const word of words(text))
      if (!isStopWord(word)) out.set(word, (out.get(word) ?? 0) + weight);
  }
  return out;
}
