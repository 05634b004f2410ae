/**
 * The rankings compared by eval/signals/run.ts, each built over one set's catalog. The
 * first is the baseline (plain BM25), each next one adds one signal to the one before.
 */
import {
  DEFAULT_RANKING,
  parseConversation,
  reportSearchDoc,
  selectTools,
  ToolSearchIndex,
} from '@app/selection';
import type { RankingOptions } from '@app/selection';
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

const PLAIN: RankingOptions = {
  stemming: false,
  typoTolerance: false,
  businessSynonyms: false,
  wordnet: false,
  countries: false,
  conversation: false,
};

export function buildIndex(
  set: EvalSet,
  options: RankingOptions,
  authorWords: boolean,
): ToolSearchIndex {
  const index = new ToolSearchIndex(options);
  index.sync(
    set.reports.map((r) =>
      reportSearchDoc(
        reportToolName(r.id),
        authorWords ? r.metadata : { ...r.metadata, synonyms: [], exampleQuestions: [] },
        [r.context],
      ),
    ),
  );
  return index;
}

const lexical =
  (options: RankingOptions, authorWords: boolean) =>
  (set: EvalSet): ((q: SetQuestion) => Ranked) => {
    const index = buildIndex(set, options, authorWords);
    return (q) => {
      const sel = selectTools(index, parseConversation(q.messages), everyone, LIMIT);
      return { ids: sel.tools.map((t) => idOf(t.name)), context: sel.contexts[0]?.name };
    };
  };

export const METHODS: Method[] = [
  { name: 'plain BM25 (no stemming, synonyms, typos, conversation)', build: lexical(PLAIN, false) },
  {
    name: "today's select (BM25 + vocabulary + conversation)",
    build: lexical(DEFAULT_RANKING, true),
  },
];
