/**
 * The rankings compared by eval/signals/run.ts, each built over one set's catalog. The
 * first is the baseline (plain BM25), each next one adds one signal to the one before.
 */
import {
  DEFAULT_FUSION,
  DEFAULT_RANKING,
  parseConversation,
  reportSearchDoc,
  selectTools,
  SemanticIndex,
  shippedWordVectors,
  ToolSearchIndex,
} from '@app/selection';
import type { FusionWeights, RankingOptions, SearchDoc, SelectionSignals } from '@app/selection';
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
  fusion?: FusionWeights;
}

export function buildSignals(
  set: EvalSet,
  signals: Signals,
  authorWords: boolean,
): SelectionSignals | undefined {
  if (!signals.semantic) return undefined;
  const semantic = new SemanticIndex(shippedWordVectors());
  semantic.sync(searchDocs(set, authorWords));
  return { semantic, fusion: signals.fusion ?? DEFAULT_FUSION };
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

export const METHODS: Method[] = [
  {
    name: 'plain BM25 (no stemming, synonyms, typos, conversation)',
    build: ranker(PLAIN, false),
  },
  {
    name: "today's select (BM25 + vocabulary + conversation)",
    build: ranker(DEFAULT_RANKING, true),
  },
  { name: 'plain BM25 + word vectors (RRF)', build: ranker(PLAIN, false, { semantic: true }) },
  {
    name: "today's select + word vectors (RRF)",
    build: ranker(DEFAULT_RANKING, true, { semantic: true }),
  },
];
