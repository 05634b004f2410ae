import { conversationQuery } from './conversation';
import type { Conversation } from './conversation';
import { reciprocalRankFusion } from './fusion';
import type { RankedList } from './fusion';
import { FOLLOW_UP_FAMILY_BOOST } from '../index/search-query';
import { terms } from '../words/text';
import type { ToolSearchIndex } from '../index/search-index';
import type { SearchHit } from '../index/search-query';
import type { SemanticIndex } from '../index/semantic-index';
import type { UsageHistory } from '../usage/usage-history';
import { Vocabulary } from '../words/vocabulary';

export interface DetectedContext {
  name: string;
  /** its share of the top tools' scores, 0..1 */
  score: number;
}

export interface Selection {
  contexts: DetectedContext[];
  tools: SearchHit[];
}

/**
 * Signals fused with the lexical ranking by reciprocal rank fusion; each is optional, and
 * without any the lexical ranking is the answer as it was.
 */
export interface SelectionSignals {
  semantic?: SemanticIndex;
  /** the tenant's own past questions and the tools they led to */
  history?: UsageHistory;
  /** the clock the history's decay reads (epoch ms) */
  now?: number;
  /** who asks: their own past questions always count, others' once enough users agree */
  user?: string;
  fusion: FusionWeights;
}

/** RRF constant and the semantic list's weight (lexical = 1); chosen on the tuning set only. */
export interface FusionWeights {
  k: number;
  semantic: number;
  /** the usage-history list's weight; absent: 0 */
  history?: number;
}

/**
 * From `npm run eval:tune` (tuning set only): the largest semantic weight whose tuning-set
 * recall@1 and recall@5 equal the lexical ranking's alone (0.2 already costs two questions).
 */
export const DEFAULT_FUSION: FusionWeights = { k: 10, semantic: 0.1 };

/** How deep each list goes into the fusion. */
const FUSION_DEPTH = 50;
/** What a tool found by meaning alone says it matched. */
export const SIMILAR_MEANING = '(similar meaning)';
/** What a tool found by the tenant's past questions alone says it matched. */
export const ASKED_BEFORE = '(asked before)';

/**
 * A follow-up ("same by channel", "and per month?") usually changes the breakdown of the
 * report it follows, not the measure: unless its words name another family's measure, the
 * family of the tool called last gets a boost (the tool itself keeps its own, larger one).
 */
function keepFamily(
  index: ToolSearchIndex,
  conversation: Conversation,
  boosts: Map<string, number>,
): void {
  const boost = index.options.followUpFamily ?? FOLLOW_UP_FAMILY_BOOST;
  const last = conversation.toolCalls[conversation.toolCalls.length - 1];
  if (!index.options.conversation || boost <= 1 || last === undefined) return;
  // "and what about hires?" names another measure: the user left the family
  const turn = conversation.userTurns[conversation.userTurns.length - 1];
  if (terms(turn, index.options.stemming).some((t) => index.namesOtherFamily(t, last))) return;
  for (const sibling of index.siblings(last))
    boosts.set(sibling, Math.max(boosts.get(sibling) ?? 1, boost));
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
  signals?: SelectionSignals,
): Selection {
  const query = conversationQuery(conversation, vocabularyFor(index), index.options, (t) =>
    index.knows(t),
  );
  keepFamily(index, conversation, query.toolBoosts);
  const depth = Math.max(limit, CONTEXT_VOTERS, signals ? FUSION_DEPTH : 0);
  const lexical = index.search(query, allowed, depth);
  const hits = signals ? fuse(index, conversation, lexical, allowed, depth, signals) : lexical;
  // fused scores come from ranks and are nearly flat: the lexical scores vote on the context
  // when there are any
  const voters = lexical.length > 0 ? lexical : hits;
  return { contexts: detectContexts(index, voters), tools: hits.slice(0, limit) };
}

/** The lexical hits fused with the other signals' rankings. */
function fuse(
  index: ToolSearchIndex,
  conversation: Conversation,
  lexical: SearchHit[],
  allowed: (name: string) => boolean,
  depth: number,
  signals: SelectionSignals,
): SearchHit[] {
  const { fusion } = signals;
  const lists: RankedList[] = [{ names: lexical.map((h) => h.name), weight: 1 }];
  const asked = new Set<string>();
  if (signals.semantic && fusion.semantic > 0) {
    const turns = index.options.conversation
      ? conversation.userTurns
      : conversation.userTurns.slice(-1);
    const similar = signals.semantic.search(turns, allowed, depth);
    lists.push({ names: similar.map((h) => h.name), weight: fusion.semantic });
  }
  if (signals.history && (fusion.history ?? 0) > 0) {
    const last = conversation.userTurns[conversation.userTurns.length - 1];
    const past = signals.history.search(
      last,
      allowed,
      depth,
      signals.now ?? Date.now(),
      signals.user,
    );
    lists.push({ names: past.map((h) => h.name), weight: fusion.history! });
    for (const h of past) asked.add(h.name);
  }
  if (lists.length === 1) return lexical;
  const byName = new Map(lexical.map((h) => [h.name, h]));
  // a first place in the lexical list alone scores 1
  return reciprocalRankFusion(lists, fusion.k).map((f) => ({
    name: f.name,
    score: f.score * (fusion.k + 1),
    matched: byName.get(f.name)?.matched ?? [asked.has(f.name) ? ASKED_BEFORE : SIMILAR_MEANING],
  }));
}

/** search_tools: a plain query (the model's own words), no conversation. */
export function searchTools(
  index: ToolSearchIndex,
  query: string,
  allowed: (name: string) => boolean,
  limit: number,
  signals?: SelectionSignals,
): SearchHit[] {
  return selectTools(index, { userTurns: [query], toolCalls: [] }, allowed, limit, signals).tools;
}
