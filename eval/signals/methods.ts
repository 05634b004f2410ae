/**
 * The rankings compared by eval/signals/run.ts, each built over one set's catalog. The
 * first is the baseline (plain BM25), each next one adds one signal to the one before.
 */
import {
  DEFAULT_FUSION,
  DEFAULT_RANKING,
  DEFAULT_SIGNALS,
  parseConversation,
  reportSearchDoc,
  selectTools,
  SemanticIndex,
  shippedWordVectors,
  ToolSearchIndex,
  UsageHistory,
} from '@app/selection';
import type {
  FusionWeights,
  RankingOptions,
  SearchDoc,
  SelectionSignals,
  UsageRecord,
} from '@app/selection';
import { reportToolName } from '@app/templates';
import type { EvalSet, SetQuestion } from './sets';

export interface Ranked {
  /** report ids, best first (top 5) */
  ids: string[];
  /** the detected business context, if any */
  context: string | undefined;
}

export interface Method {
  name: string;
  build: (set: EvalSet) => (q: SetQuestion) => Ranked;
}

const LIMIT = 5;
const everyone = (): boolean => true;
const idOf = (name: string): string => name.replace(/^query_report_/, '');

export const PLAIN: RankingOptions = {
  stemming: false,
  typoTolerance: false,
  businessSynonyms: false,
  wordnet: false,
  countries: false,
  conversation: false,
};

export function searchDocs(set: EvalSet, authorWords: boolean): SearchDoc[] {
  return set.reports.map((r) =>
    reportSearchDoc(
      reportToolName(r.id),
      authorWords ? r.metadata : { ...r.metadata, synonyms: [], exampleQuestions: [] },
      [r.context],
    ),
  );
}

export function buildIndex(
  set: EvalSet,
  options: RankingOptions,
  authorWords: boolean,
): ToolSearchIndex {
  const index = new ToolSearchIndex(options);
  index.sync(searchDocs(set, authorWords));
  return index;
}

export interface Signals {
  semantic?: boolean;
  history?: UsageHistory;
  fusion?: FusionWeights;
}

/** The eval's clock: fixed, so decay (and so every figure) is the same on every run. */
export const NOW = Date.parse('2026-12-01T00:00:00Z');
const DAY = 86_400_000;

/**
 * The history a tenant would have if its users had asked `questions` (one a day, the latest
 * yesterday) and called the first accepted report each time.
 */
export function replayRecords(set: EvalSet, questions: SetQuestion[]): UsageRecord[] {
  return questions.flatMap((q, i) => {
    const turns = parseConversation(q.messages).userTurns;
    const tool = set.reports.find((r) => q.accepts(r.id));
    if (!tool) return [];
    return [
      {
        query: turns[turns.length - 1],
        tool: reportToolName(tool.id),
        at: NOW - (questions.length - i) * DAY,
      },
    ];
  });
}

export function replayHistory(set: EvalSet, questions: SetQuestion[]): UsageHistory {
  return new UsageHistory(DEFAULT_HISTORY, replayRecords(set, questions));
}

const DEFAULT_HISTORY = {
  halfLifeDays: DEFAULT_SIGNALS.historyHalfLifeDays,
  maxAgeDays: DEFAULT_SIGNALS.historyMaxAgeDays,
};

/** Questions split for the history measurement: even positions replayed, odd ones scored. */
export const replayed = (qs: SetQuestion[]): SetQuestion[] => qs.filter((_, i) => i % 2 === 0);
export const scored = (qs: SetQuestion[]): SetQuestion[] => qs.filter((_, i) => i % 2 === 1);

export function buildSignals(
  set: EvalSet,
  signals: Signals,
  authorWords: boolean,
): SelectionSignals | undefined {
  if (!signals.semantic && !signals.history) return undefined;
  let semantic: SemanticIndex | undefined;
  if (signals.semantic) {
    semantic = new SemanticIndex(shippedWordVectors());
    semantic.sync(searchDocs(set, authorWords));
  }
  const fusion = signals.fusion ?? {
    ...DEFAULT_FUSION,
    semantic: signals.semantic ? DEFAULT_FUSION.semantic : 0,
    history: DEFAULT_SIGNALS.historyWeight,
  };
  return { semantic, history: signals.history, now: NOW, fusion };
}

export const ranker =
  (options: RankingOptions, authorWords: boolean, signals: Signals = {}) =>
  (set: EvalSet): ((q: SetQuestion) => Ranked) => {
    const index = buildIndex(set, options, authorWords);
    const built = buildSignals(set, signals, authorWords);
    return (q) => {
      const sel = selectTools(index, parseConversation(q.messages), everyone, LIMIT, built);
      return { ids: sel.tools.map((t) => idOf(t.name)), context: sel.contexts[0]?.name };
    };
  };

/** The select of before issue #31: no follow-up family boost. */
export const TODAY: RankingOptions = { ...DEFAULT_RANKING, followUpFamily: 1 };

export const METHODS: Method[] = [
  {
    name: 'plain BM25 (no stemming, synonyms, typos, conversation)',
    build: ranker(PLAIN, false),
  },
  { name: "today's select (BM25 + vocabulary + conversation)", build: ranker(TODAY, true) },
  { name: 'plain BM25 + word vectors (RRF)', build: ranker(PLAIN, false, { semantic: true }) },
  {
    name: "today's select + word vectors (RRF)",
    build: ranker(TODAY, true, { semantic: true }),
  },
  {
    name: '+ follow-ups keep the family (the new default)',
    build: ranker(DEFAULT_RANKING, true, { semantic: true }),
  },
];
