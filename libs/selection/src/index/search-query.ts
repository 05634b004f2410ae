/**
 * What a search of the tool index takes and gives: the ranking switches, a weighted query and a
 * hit. Shared by the index (which answers it) and the ranking (which builds the query).
 */

/** What each part of the ranking may use; every switch is measured in the eval's ablations. */
export interface RankingOptions {
  stemming: boolean;
  /** fuzzy (edit distance) and prefix matching of query terms */
  typoTolerance: boolean;
  /** the shipped business vocabulary */
  businessSynonyms: boolean;
  /** WordNet synonyms */
  wordnet: boolean;
  /** country names to the ISO codes catalogs store ("Germany" -> de) */
  countries: boolean;
  /** earlier user turns and tool calls already made count; else only the last user turn */
  conversation: boolean;
  /**
   * a follow-up's boost for the report family (same title before "by"/"per") of the tool
   * called last; absent: FOLLOW_UP_FAMILY_BOOST, 1: off
   */
  followUpFamily?: number;
}

/** Chosen on the tuning set (`npm run eval:tune`). */
export const FOLLOW_UP_FAMILY_BOOST = 1.2;

/**
 * A report's family: its title up to the first breakdown word ("Scrap rate by plant" and
 * "Scrap rate per month" are both "scrap rate"), lower-cased.
 */
export function familyOf(title: string): string {
  return title
    .toLowerCase()
    .split(/\s+(?:by|per)\s+/)[0]
    .trim();
}

export const DEFAULT_RANKING: RankingOptions = {
  stemming: true,
  typoTolerance: true,
  businessSynonyms: true,
  wordnet: true,
  countries: true,
  conversation: true,
};

/** A query: index terms with weights, and for each term the words it came from. */
export interface WeightedQuery {
  weights: Map<string, number>;
  /** term -> how to explain a match on it, e.g. "quit" or "quit~attrition" */
  labels: Map<string, string>;
  /** terms the user wrote (not synonyms): only these are matched fuzzily and by prefix */
  own?: Set<string>;
  /** tool name -> multiplier (tools called earlier in the conversation) */
  toolBoosts: Map<string, number>;
}

export interface SearchHit {
  name: string;
  score: number;
  /** the query words (or synonyms) that matched, sorted */
  matched: string[];
}
