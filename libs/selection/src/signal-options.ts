/** Signals beside BM25 (the app reads them from SELECTION_*; docs/configuration.md). */
export interface SignalOptions {
  /** fuse the word-vector similarity (libs/selection/data/word-vectors.bin) */
  vectors: boolean;
  /** reciprocal rank fusion constant */
  fusionK: number;
  /** the word-vector list's weight (the lexical list's is 1) */
  vectorWeight: number;
  /** fuse the tenant's own past questions that led to a tool */
  history: boolean;
  historyWeight: number;
  /** a past question counts half after this many days */
  historyHalfLifeDays: number;
  /** and not at all after this many */
  historyMaxAgeDays: number;
  /** distinct users whose past questions a tool needs before they count for colleagues */
  historyMinUsers: number;
  /** records one user adds to the history per day, at most (per instance) */
  historyPerUserPerDay: number;
}

export const SELECTION_SIGNALS = Symbol('SELECTION_SIGNALS');

/** Chosen on the tuning set only (`npm run eval:tune`; eval/RESULTS.md). */
export const DEFAULT_SIGNALS: SignalOptions = {
  vectors: true,
  fusionK: 10,
  vectorWeight: 0.1,
  history: true,
  historyWeight: 0.3,
  historyHalfLifeDays: 30,
  historyMaxAgeDays: 180,
  historyMinUsers: 3,
  historyPerUserPerDay: 20,
};
