import { SelectionError } from '../errors';
import { dot, normalise, WordVectors } from './word-vectors';

const TABLE: Array<[string, number[]]> = [
  ['hotel', [1, 0.9, 0, 0]],
  ['motel', [0.9, 1, 0.1, 0]],
  ['invoice', [0, 0, 1, 0.2]],
  ['zero', [0, 0, 0, 0]],
];

describe('WordVectors', () => {
  const table = WordVectors.decode(WordVectors.encode(4, TABLE));

  it('round-trips words, order and size through the int8 format', () => {
    expect(table.size).toBe(4);
    expect(table.dims).toBe(4);
    expect(table.words).toEqual(['hotel', 'motel', 'invoice', 'zero']);
    expect(table.rank('invoice')).toBe(2);
    expect(table.has('unknown')).toBe(false);
    // 4 dims x 1 byte + one f32 scale per word
    expect(table.bytes).toBe(4 * 4 + 4 * 4);
  });

  it('keeps cosine similarity within quantisation error (under 1%)', () => {
    const exact = (a: number[], b: number[]): number =>
      dot(normalise(Float32Array.from(a)), normalise(Float32Array.from(b)));
    expect(table.similarity('hotel', 'motel')).toBeCloseTo(exact(TABLE[0][1], TABLE[1][1]), 2);
    expect(table.similarity('hotel', 'invoice')).toBeCloseTo(exact(TABLE[0][1], TABLE[2][1]), 2);
    expect(table.similarity('hotel', 'motel')!).toBeGreaterThan(
      table.similarity('hotel', 'invoice')!,
    );
    expect(table.similarity('hotel', 'unknown')).toBeUndefined();
  });

  it('adds a weighted unit vector, and nothing for an unknown word', () => {
    const into = new Float32Array(4);
    expect(table.addTo(into, 'invoice', 2)).toBe(true);
    expect(Math.sqrt(dot(into, into))).toBeCloseTo(2, 1);
    expect(table.addTo(into, 'nope', 1)).toBe(false);
    const zero = new Float32Array(4);
    table.addTo(zero, 'zero', 1);
    expect([...zero]).toEqual([0, 0, 0, 0]);
  });

  it('does not alias the buffer it was decoded from', () => {
    const bytes = WordVectors.encode(4, TABLE);
    const decoded = WordVectors.decode(bytes);
    bytes.fill(0);
    expect(decoded.similarity('hotel', 'motel')!).toBeGreaterThan(0.9);
  });

  it('refuses a foreign, truncated or inconsistent file with a coded error', () => {
    const good = WordVectors.encode(4, TABLE);
    const cases = [
      Buffer.from('not a table at all'),
      good.subarray(0, good.length - 1),
      Buffer.concat([good, Buffer.alloc(4)]),
    ];
    for (const bad of cases) {
      expect(() => WordVectors.decode(bad)).toThrow(SelectionError);
      try {
        WordVectors.decode(bad);
      } catch (err) {
        expect((err as SelectionError).code).toBe('WORD_VECTORS_INVALID');
      }
    }
  });

  it('refuses to encode a vector shorter than the table', () => {
    expect(() => WordVectors.encode(4, [['short', [1, 2]]])).toThrow(/2 < 4/);
  });
});
