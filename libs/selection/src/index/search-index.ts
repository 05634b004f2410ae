import MiniSearch from 'minisearch';
import type { SearchResult } from 'minisearch';
import type { SearchDoc } from './search-doc';
import { DEFAULT_RANKING, familyOf } from './search-query';
import type { RankingOptions, SearchHit, WeightedQuery } from './search-query';
import { isStopWord, stem, terms, words } from '../words/text';

const FIELDS = [
  'title',
  'name',
  'synonyms',
  'examples',
  'context',
  'description',
  'filters',
  'values',
  'fields',
];
const BOOST = {
  title: 3,
  name: 1.5,
  synonyms: 2,
  examples: 1.5,
  context: 1,
  description: 1,
  filters: 0.5,
  values: 1,
  fields: 0.5,
};

interface IndexedDoc {
  id: string;
  title: string;
  name: string;
  synonyms: string;
  examples: string;
  context: string;
  description: string;
  filters: string;
  values: string;
  fields: string;
}

function indexed(doc: SearchDoc): IndexedDoc {
  return {
    id: doc.name,
    title: doc.title,
    name: doc.name.replace(/^query_report_/, ''),
    synonyms: doc.synonyms.join(' '),
    examples: doc.examples.join(' '),
    context: [doc.category, ...doc.contexts].join(' '),
    description: doc.description,
    filters: doc.filters,
    values: doc.values,
    fields: doc.fields,
  };
}

function matchedWords(queryTerms: string[], query: WeightedQuery): string[] {
  if (queryTerms.length === 0) return ['(called earlier)'];
  return [...new Set(queryTerms.map((t) => query.labels.get(t) ?? t))].sort();
}

interface HeldDoc {
  doc: SearchDoc;
  indexed: IndexedDoc;
  /** the title's index terms, once each: how much of the title a query covers */
  titleTerms: string[];
}

/** How much a tool whose title the query covers entirely gains over one it covers not at all. */
const TITLE_COVERAGE = 0.5;

/**
 * A full-text index (MiniSearch: BM25, prefix and fuzzy matching) over one tenant's tools.
 * `sync` patches it with what changed since the last call (by each doc's signature), so a
 * catalog change costs the reports it touched. Searching never returns a tool the caller's
 * `allowed` test refuses.
 */
export class ToolSearchIndex {
  private readonly search_: MiniSearch<IndexedDoc>;
  private readonly docs = new Map<string, HeldDoc>();
  /** how many docs hold each term (any field): tells a catalog word from a user's own word */
  private readonly termDocs = new Map<string, number>();
  /** family (familyOf the title) -> tool names */
  private readonly families = new Map<string, Set<string>>();
  /** term -> how many families' names hold it ("units" in "good units produced") */
  private readonly familyTerms = new Map<string, number>();

  constructor(readonly options: RankingOptions = DEFAULT_RANKING) {
    const stemming = options.stemming;
    this.search_ = new MiniSearch<IndexedDoc>({
      fields: FIELDS,
      storeFields: [],
      tokenize: (text) => words(text),
      processTerm: (term) => (isStopWord(term) ? null : stemming ? stem(term) : term),
    });
  }

  get size(): number {
    return this.docs.size;
  }

  /**
   * Only the user's own words that no tool uses are matched fuzzily and by prefix: a word
   * the catalog holds is spelled right, and looking for its neighbours costs time and pulls
   * in wrong near-duplicates.
   */
  private mayBeTypo(term: string, query: WeightedQuery): boolean {
    return (query.own?.has(term) ?? true) && !this.knows(term);
  }

  /** Whether some tool's metadata uses this term. */
  knows(term: string): boolean {
    return (this.termDocs.get(term) ?? 0) > 0;
  }

  private count(doc: IndexedDoc, delta: number): void {
    const seen = new Set<string>();
    for (const field of FIELDS) {
      for (const word of words(doc[field as keyof IndexedDoc])) {
        if (isStopWord(word)) continue;
        seen.add(this.options.stemming ? stem(word) : word);
      }
    }
    for (const term of seen) this.termDocs.set(term, (this.termDocs.get(term) ?? 0) + delta);
  }

  doc(name: string): SearchDoc | undefined {
    return this.docs.get(name)?.doc;
  }

  /** The tools of `name`'s report family, itself included. */
  siblings(name: string): string[] {
    const doc = this.docs.get(name)?.doc;
    return doc ? [...(this.families.get(familyOf(doc.title)) ?? [])] : [];
  }

  private family(doc: SearchDoc, add: boolean): void {
    const key = familyOf(doc.title);
    let members = this.families.get(key);
    if (!members) {
      this.families.set(key, (members = new Set()));
      this.countFamilyTerms(key, 1);
    }
    if (add) members.add(doc.name);
    else members.delete(doc.name);
    if (members.size === 0) {
      this.families.delete(key);
      this.countFamilyTerms(key, -1);
    }
  }

  private countFamilyTerms(key: string, delta: number): void {
    for (const t of new Set(terms(key, this.options.stemming)))
      this.familyTerms.set(t, (this.familyTerms.get(t) ?? 0) + delta);
  }

  /** Whether `term` is part of the name of a report family other than `name`'s. */
  namesOtherFamily(term: string, name: string): boolean {
    const doc = this.docs.get(name)?.doc;
    const own = doc ? terms(familyOf(doc.title), this.options.stemming).includes(term) : false;
    return (this.familyTerms.get(term) ?? 0) > (own ? 1 : 0);
  }

  /** Makes the index hold exactly `docs`; returns how many were added, changed, removed. */
  sync(docs: Iterable<SearchDoc>): { added: number; changed: number; removed: number } {
    const seen = new Set<string>();
    let added = 0;
    let changed = 0;
    let removed = 0;
    for (const doc of docs) {
      seen.add(doc.name);
      const held = this.docs.get(doc.name);
      if (held?.doc.signature === doc.signature) continue;
      if (held) {
        this.search_.remove(held.indexed);
        this.count(held.indexed, -1);
        this.family(held.doc, false);
        changed++;
      } else added++;
      const entry = {
        doc,
        indexed: indexed(doc),
        titleTerms: [...new Set(terms(doc.title, this.options.stemming))],
      };
      this.search_.add(entry.indexed);
      this.count(entry.indexed, 1);
      this.family(doc, true);
      this.docs.set(doc.name, entry);
    }
    for (const [name, held] of this.docs) {
      if (seen.has(name)) continue;
      this.search_.remove(held.indexed);
      this.count(held.indexed, -1);
      this.family(held.doc, false);
      this.docs.delete(name);
      removed++;
    }
    return { added, changed, removed };
  }

  /**
   * Near-duplicates ("Revenue by region" and "Revenue by region and channel") match the same
   * words; the one whose title the question covers best (says least the user did not ask
   * for) goes first.
   */
  private titleCoverage(name: string, query: WeightedQuery): number {
    const titleTerms = this.docs.get(name)?.titleTerms ?? [];
    if (titleTerms.length === 0) return 1;
    let covered = 0;
    for (const t of titleTerms) covered += Math.min(1, query.weights.get(t) ?? 0);
    return 1 + (TITLE_COVERAGE * covered) / titleTerms.length;
  }

  /** Ranked tools for a weighted query, only among `allowed` ones; ties go by name. */
  search(query: WeightedQuery, allowed: (name: string) => boolean, limit: number): SearchHit[] {
    if (query.weights.size === 0 && query.toolBoosts.size === 0) return [];
    const typos = this.options.typoTolerance;
    const results: SearchResult[] =
      query.weights.size === 0
        ? []
        : this.search_.search([...query.weights.keys()].join(' '), {
            tokenize: (text) => text.split(' '),
            processTerm: (term) => term,
            boost: BOOST,
            boostTerm: (term) => query.weights.get(term) ?? 1,
            boostDocument: (id) => query.toolBoosts.get(id as string) ?? 1,
            fuzzy: typos
              ? (term) => (term.length >= 5 && this.mayBeTypo(term, query) ? 0.25 : false)
              : false,
            prefix: typos ? (term) => term.length >= 4 && this.mayBeTypo(term, query) : false,
            weights: { fuzzy: 0.45, prefix: 0.35 },
            filter: (result) => allowed(result.id as string),
          });
    // the words that matched are spelled out for the top `limit` only: the rest are dropped
    const ranked = results.map((r) => ({
      name: r.id as string,
      score: r.score * this.titleCoverage(r.id as string, query),
      queryTerms: r.queryTerms,
    }));
    const seen = new Set(ranked.map((r) => r.name));
    // a tool called earlier in the conversation stays a candidate even when no word matches it
    for (const [name, boost] of query.toolBoosts) {
      if (seen.has(name) || !this.docs.has(name) || !allowed(name)) continue;
      ranked.push({ name, score: boost - 1, queryTerms: [] });
    }
    return ranked
      .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .slice(0, limit)
      .map((r) => ({ name: r.name, score: r.score, matched: matchedWords(r.queryTerms, query) }));
  }
}
