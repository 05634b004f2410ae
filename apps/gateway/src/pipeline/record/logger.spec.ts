import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import { createLogger, LineBatch } from './logger';
import { runInRequest } from '../request-context';
import type { RequestContext } from '../request-context';

describe('trace id of a line', () => {
  function capture(): { lines: string[]; sink: Writable } {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    return { lines, sink };
  }

  const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
  const ctx = {
    traceId: TRACE,
    span: trace.wrapSpanContext({ traceId: TRACE, spanId: '00f067aa0ba902b7', traceFlags: 0 }),
    method: 'GET',
    startedAt: 0,
    route: '/v1/tools',
  } as unknown as RequestContext;

  it("stamps a line written inside a request with the request's trace id", () => {
    const { lines, sink } = capture();
    const log = createLogger({ log: { level: 'info', format: 'json' } }, sink);
    runInRequest(ctx, () => log.info({ gate: 'review' }, 'gate decision'));
    log.info({ gate: 'review' }, 'outside any request');
    const [inside, outside] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(inside).toMatchObject({ trace_id: TRACE, gate: 'review', msg: 'gate decision' });
    expect(outside).not.toHaveProperty('trace_id');
  });

  it('keeps a trace id the line names itself, once, and leaves its object as it was', () => {
    const { lines, sink } = capture();
    const log = createLogger({ log: { level: 'info', format: 'json' } }, sink);
    const fields = { trace_id: 'ffffffffffffffffffffffffffffffff', route: '/v1/tools' };
    runInRequest(ctx, () => log.info(fields, 'request'));
    expect(lines).toHaveLength(1);
    expect(lines[0].match(/"trace_id"/g)).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject(fields);
    expect(fields).toEqual({ trace_id: 'ffffffffffffffffffffffffffffffff', route: '/v1/tools' });
  });
});

describe('LineBatch', () => {
  /** what a batch hands on, as text; each chunk must be a buffer of its own */
  function sink(): { chunks: string[]; out: { write(chunk: Buffer): void } } {
    const chunks: string[] = [];
    const seen = new Set<ArrayBufferLike>();
    return {
      chunks,
      out: {
        write(chunk: Buffer) {
          expect(Buffer.isBuffer(chunk)).toBe(true);
          expect(seen.has(chunk.buffer)).toBe(false);
          seen.add(chunk.buffer);
          chunks.push(chunk.toString('utf8'));
        },
      },
    };
  }

  it('writes lines in order as UTF-8, a chunk when the next line might not fit, the rest when flushed', () => {
    const { chunks, out } = sink();
    const batch = new LineBatch(out, 20);
    batch.write('aaaa\n'); // at most 15 bytes, 5 written
    batch.write('bé\n'); // at most 9 (5 + 9 <= 20), 4 written
    expect(chunks).toEqual([]);
    batch.write('ccc\n'); // at most 12: 9 + 12 > 20, so the pending lines go first
    expect(chunks).toEqual(['aaaa\nbé\n']);
    let flushed = false;
    batch.flush(() => (flushed = true));
    expect(flushed).toBe(true);
    expect(chunks).toEqual(['aaaa\nbé\n', 'ccc\n']);
    batch.flush();
    expect(chunks).toHaveLength(2);
  });

  it('writes a line longer than the batch on its own, after the lines before it', () => {
    const { chunks, out } = sink();
    const batch = new LineBatch(out, 30);
    batch.write('a\n');
    const long = `${'😀'.repeat(20)}\n`;
    batch.write(long);
    batch.write('b\n');
    batch.flush();
    expect(chunks).toEqual(['a\n', long, 'b\n']);
  });

  it("is what pino's flush empties: every line of a logger reaches the output", () => {
    const { chunks, out } = sink();
    const batch = new LineBatch(out, 4096);
    const log = createLogger({ log: { level: 'info', format: 'json' } }, batch);
    for (let i = 0; i < 100; i++) log.info({ i }, 'line');
    let done = false;
    log.flush(() => (done = true));
    expect(done).toBe(true);
    const lines = chunks.join('').split('\n').filter(Boolean);
    expect(lines.map((l) => (JSON.parse(l) as { i: number }).i)).toEqual(
      Array.from({ length: 100 }, (_, i) => i),
    );
    expect(chunks.length).toBeGreaterThan(1);
  });
});
