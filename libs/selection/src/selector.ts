import { conversationQuery } from './conversation';
import type { Conversation } from './conversation';
import type { SearchHit, ToolSearchIndex } from './search-index';
import { Vocabulary } from './vocabulary';

export interface DetectedContext {
  name: string;
  /** its share of the top tools' scores, 0..1 */
  score: number;
}

export interface Selection {
  contexts: DetectedContext[];
  tools: SearchHit[];
}

/** How many of the top hits vote on the context. */
const CONTEXT_VOTERS = 20;
const MIN_CONTEXT_SHARE = 0.1;
const MAX_CONTEXTS = 3;

const vocabularies = new Map<string, Vocabulary>();

/** One vocabulary per set of options, built on first use. */
export function vocabularyFor(index: ToolSearchIndex): Vocabulary {
  const { businessSynonyms, wordnet, countries, stemming } = index.options;
  const key = `${businessSynonyms}:${wordnet}:${countries}:${stemming}`;
  let vocabulary = vocabularies.get(key);
  if (!vocabulary) {
    vocabulary = new Vocabulary({ business: businessSynonyms, wordnet, countries, stemming });
    vocabularies.set(key, vocabulary);
  }
  return vocabulary;
}

/** Scores of the top hits summed per business context, as shares. */
export function detectContexts(index: ToolSearchIndex, hits: SearchHit[]): DetectedContext[] {
  const totals = new Map<string, number>();
  let sum = 0;
  for (const hit of hits.slice(0, CONTEXT_VOTERS)) {
    for (const context of index.doc(hit.name)?.contexts ?? []) {
      totals.set(context, (totals.get(context) ?? 0) + hit.score);
      sum += hit.score;
    }
  }
  if (sum <= 0) return [];
  return [...totals.entries()]
    .map(([name, total]) => ({ name, score: Math.round((total / sum) * 1000) / 1000 }))
    .filter((c) => c.score >= MIN_CONTEXT_SHARE)
    .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1))
    .slice(0, MAX_CONTEXTS);
}

/**
 * The tools for a conversation, among those `allowed` (the caller's visible set): ranked,
 * each with the words that matched, and the business contexts they point to. Deterministic:
 * the same index content and conversation give the same answer.
 */
export function selectTools(
  index: ToolSearchIndex,
  conversation: Conversation,
  allowed: (name: string) => boolean,
  limit: number,
): Selection {
  const query = conversationQuery(conversation, vocabularyFor(index), index.options, (t) =>
    index.knows(t),
  );
  const hits = index.search(query, allowed, Math.max(limit, CONTEXT_VOTERS));
  return { contexts: detectContexts(index, hits), tools: hits.slice(0, limit) };
}

/** search_tools: a plain query (the model's own words), no conversation. */
export function searchTools(
  index: ToolSearchIndex,
  query: string,
  allowed: (name: string) => boolean,
  limit: number,
): SearchHit[] {
  return selectTools(index, { userTurns: [query], toolCalls: [] }, allowed, limit).tools;
}
