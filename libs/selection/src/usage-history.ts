/**
 * What a tenant's users actually called after a select or a search_tools: each past question
 * becomes searchable text of the tool it led to, weighed down by age (a half-life) and
 * forgotten past a maximum age. One instance holds ONE tenant's records: the service keeps
 * one per tenant and loads it with that tenant's rows only, so nothing is shared. Pure.
 */
import { isStopWord, stem, words } from './text';

export interface UsageRecord {
  /** the question (last user turn, or the search query) that led to the call */
  query: string;
  /** the tool called */
  tool: string;
  /** when, as epoch milliseconds */
  at: number;
}

export interface HistoryOptions {
  halfLifeDays: number;
  maxAgeDays: number;
  /** a past question must share at least this much (idf-weighted cosine) to count */
  minSimilarity?: number;
}

export interface HistoryHit {
  name: string;
  score: number;
}

const DAY_MS = 86_400_000;
/** Chosen on the tuning set (`npm run eval:tune`). */
export const HISTORY_MIN_SIMILARITY = 0.7;

interface Held {
  tool: string;
  at: number;
  terms: Set<string>;
}

function termsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of words(text)) if (!isStopWord(w)) out.add(stem(w));
  return out;
}

export class UsageHistory {
  private readonly records: Held[] = [];
  /** how many records hold each term: a term every past question has says little */
  private readonly df = new Map<string, number>();

  constructor(
    private readonly options: HistoryOptions,
    records: Iterable<UsageRecord> = [],
  ) {
    for (const r of records) this.add(r);
  }

  get size(): number {
    return this.records.length;
  }

  add(record: UsageRecord): void {
    const terms = termsOf(record.query);
    if (terms.size === 0) return;
    this.records.push({ tool: record.tool, at: record.at, terms });
    for (const t of terms) this.df.set(t, (this.df.get(t) ?? 0) + 1);
  }

  /** 1 now, 1/2 after a half-life, 0 past the maximum age (or in the future: clock skew). */
  decay(at: number, now: number): number {
    const ageDays = Math.max(0, now - at) / DAY_MS;
    if (ageDays > this.options.maxAgeDays) return 0;
    return Math.pow(0.5, ageDays / this.options.halfLifeDays);
  }

  private idf(term: string): number {
    return Math.log(1 + this.records.length / (this.df.get(term) ?? 1));
  }

  /**
   * Tools whose past questions resemble this one, best first, only `allowed` ones: each past
   * question adds its idf-weighted cosine similarity times its decay to its tool.
   */
  search(
    question: string,
    allowed: (name: string) => boolean,
    limit: number,
    now: number,
  ): HistoryHit[] {
    const q = termsOf(question);
    if (q.size === 0 || this.records.length === 0) return [];
    let qNorm = 0;
    for (const t of q) qNorm += this.idf(t) ** 2;
    qNorm = Math.sqrt(qNorm);
    const scores = new Map<string, number>();
    for (const r of this.records) {
      const decay = this.decay(r.at, now);
      if (decay === 0 || !allowed(r.tool)) continue;
      let shared = 0;
      let rNorm = 0;
      for (const t of r.terms) {
        const w = this.idf(t) ** 2;
        rNorm += w;
        if (q.has(t)) shared += w;
      }
      const similarity = shared / (qNorm * Math.sqrt(rNorm));
      if (similarity < (this.options.minSimilarity ?? HISTORY_MIN_SIMILARITY)) continue;
      scores.set(r.tool, (scores.get(r.tool) ?? 0) + similarity * decay);
    }
    return [...scores.entries()]
      .map(([name, score]) => ({ name, score }))
      .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .slice(0, limit);
  }
}
