/**
 * What a tenant's users actually called after a select or a search_tools: each past question
 * becomes searchable text of the tool it led to, weighed down by age (a half-life) and
 * forgotten past a maximum age. One instance holds ONE tenant's records: the service keeps
 * one per tenant and loads it with that tenant's rows only, so nothing is shared. Pure.
 *
 * Users, not rows, are weighed (issue 38): a user's many records for a tool are one voice (the
 * best of them), and the voices of others count for a caller only once `minUsers` distinct
 * users led to the tool; the caller's own voice always counts. So one user's repeated calls
 * cannot steer colleagues' rankings. Records without a user (a replayed set) are each a voice.
 */
import { isStopWord, stem, words } from '../words/text';

export interface UsageRecord {
  /** the question (last user turn, or the search query) that led to the call */
  query: string;
  /** the tool called */
  tool: string;
  /** when, as epoch milliseconds */
  at: number;
  /** who asked; records of one user for one tool are one voice */
  user?: string;
}

export interface HistoryOptions {
  halfLifeDays: number;
  maxAgeDays: number;
  /** a past question must share at least this much (idf-weighted cosine) to count */
  minSimilarity?: number;
  /** distinct users (besides the caller) whose voices a tool needs to count for others; 1 */
  minUsers?: number;
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
  /** the voice: the user, or the record itself when it has none */
  voice: string;
  at: number;
  terms: Set<string>;
  /** the idf-weighted norm, valid while `generation` matches the history's */
  norm: number;
  generation: number;
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
  /** idf per term, and the records' norms, hold until the next add */
  private readonly idfs = new Map<string, number>();
  private generation = 0;
  /** term -> the records that hold it: a question is compared with those only */
  private readonly postings = new Map<string, number[]>();

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
    const at = this.records.length;
    const voice = record.user === undefined ? `#${at}` : `u:${record.user}`;
    this.records.push({ tool: record.tool, voice, at: record.at, terms, norm: 0, generation: -1 });
    for (const t of terms) {
      this.df.set(t, (this.df.get(t) ?? 0) + 1);
      const list = this.postings.get(t);
      if (list) list.push(at);
      else this.postings.set(t, [at]);
    }
    this.idfs.clear();
    this.generation++;
  }

  /** 1 now, 1/2 after a half-life, 0 past the maximum age (or in the future: clock skew). */
  decay(at: number, now: number): number {
    const ageDays = Math.max(0, now - at) / DAY_MS;
    if (ageDays > this.options.maxAgeDays) return 0;
    return Math.pow(0.5, ageDays / this.options.halfLifeDays);
  }

  private idf(term: string): number {
    let idf = this.idfs.get(term);
    if (idf === undefined) {
      idf = Math.log(1 + this.records.length / (this.df.get(term) ?? 1));
      this.idfs.set(term, idf);
    }
    return idf;
  }

  private norm(r: Held): number {
    if (r.generation !== this.generation) {
      let sum = 0;
      for (const t of r.terms) sum += this.idf(t) ** 2;
      r.norm = Math.sqrt(sum);
      r.generation = this.generation;
    }
    return r.norm;
  }

  /**
   * Tools whose past questions resemble this one, best first, only `allowed` ones: each voice
   * (a user, see the class) adds its best idf-weighted cosine similarity times decay to its
   * tool; `asker`'s own voice always counts, others' once `minUsers` of them agree.
   */
  search(
    question: string,
    allowed: (name: string) => boolean,
    limit: number,
    now: number,
    asker?: string,
  ): HistoryHit[] {
    const q = termsOf(question);
    if (q.size === 0 || this.records.length === 0) return [];
    let qNorm = 0;
    for (const t of q) qNorm += this.idf(t) ** 2;
    qNorm = Math.sqrt(qNorm);
    const voices = new Map<string, Map<string, number>>();
    const candidates = new Set<number>();
    for (const t of q) for (const i of this.postings.get(t) ?? []) candidates.add(i);
    for (const i of candidates) {
      const r = this.records[i];
      const decay = this.decay(r.at, now);
      if (decay === 0) continue;
      let shared = 0;
      for (const t of q) if (r.terms.has(t)) shared += this.idf(t) ** 2;
      if (shared === 0) continue;
      const similarity = shared / (qNorm * this.norm(r));
      if (similarity < (this.options.minSimilarity ?? HISTORY_MIN_SIMILARITY) || !allowed(r.tool))
        continue;
      const tool = voices.get(r.tool) ?? new Map<string, number>();
      tool.set(r.voice, Math.max(tool.get(r.voice) ?? 0, similarity * decay));
      voices.set(r.tool, tool);
    }
    const own = asker === undefined ? undefined : `u:${asker}`;
    const minUsers = this.options.minUsers ?? 1;
    const hits: HistoryHit[] = [];
    for (const [name, tool] of voices) {
      const others = tool.size - (own !== undefined && tool.has(own) ? 1 : 0);
      let score = 0;
      for (const [voice, best] of tool) if (voice === own || others >= minUsers) score += best;
      if (score > 0) hits.push({ name, score });
    }
    return hits
      .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .slice(0, limit);
  }
}
