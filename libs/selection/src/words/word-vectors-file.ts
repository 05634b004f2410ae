import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WordVectors } from './word-vectors';

/** libs/selection/data/word-vectors.bin, from source or from dist (as vocabulary.ts does). */
export const WORD_VECTORS_FILE =
  [
    join(__dirname, '..', '..', 'data', 'word-vectors.bin'),
    join(__dirname, '..', '..', '..', '..', '..', 'libs', 'selection', 'data', 'word-vectors.bin'),
  ].find((file) => existsSync(file)) ?? join(__dirname, '..', '..', 'data', 'word-vectors.bin');

let shipped: WordVectors | undefined;

/** The shipped table, read once per process (about 5.6 MB; see scripts/build-word-vectors.ts). */
export function shippedWordVectors(): WordVectors {
  shipped ??= WordVectors.decode(readFileSync(WORD_VECTORS_FILE));
  return shipped;
}
