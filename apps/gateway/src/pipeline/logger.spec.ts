import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import pino from 'pino';
import { createLogger, isoTime, isoTimeAt, LineBatch, writeAccessLine } from './logger';
import type { AccessFields } from './logger';
import { runInRequest } from './request-context';
import type { RequestContext } from './request-context';

describe('isoTime', () => {
  it("writes pino's ISO 8601 time field for the current millisecond", () => {
    const before = Date.now();
    const field = isoTime();
    const after = Date.now();
    const match = /^,"time":"(.+)"$/.exec(field);
    expect(match).not.toBeNull();
    const at = Date.parse(match![1]);
    expect(new Date(at).toISOString()).toBe(match![1]);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
  });

  it('is Date#toISOString for any millisecond, across seconds, days and years', () => {
    const at = Date.parse('2026-12-31T23:59:58.990Z');
    const times = [
      ...Array.from({ length: 2100 }, (_, i) => at + i),
      at - 86_400_000 * 400,
      0,
      -1,
      -1001,
      Date.parse('1969-12-31T23:59:59.999Z'),
      8.64e15,
      Date.parse('+010000-01-01T00:00:00.000Z') - 1,
    ];
    // in order and out of order (a clock set back)
    for (const t of [...times, ...times.reverse()])
      expect(isoTimeAt(t)).toBe(`,"time":"${new Date(t).toISOString()}"`);
  });

  it('gives every line of the logger a time that parses', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const log = createLogger({ log: { level: 'info', format: 'json' } }, sink);
    log.info({ route: '/v1/tools' }, 'request');
    log.info('second');
    const parsed = lines.map((l) => JSON.parse(l) as { time: string; level: string });
    expect(parsed).toHaveLength(2);
    for (const line of parsed) {
      expect(line.level).toBe('info');
      expect(new Date(line.time).toISOString()).toBe(line.time);
    }
  });
});

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

describe('writeAccessLine', () => {
  function capture(level = 'info'): { lines: string[]; log: ReturnType<typeof createLogger> } {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const log = createLogger({ log: { level: level as 'info', format: 'json' } }, sink);
    return { lines, log };
  }
  /** a line without its time, which differs between two writes */
  const timeless = (line: string) => line.replace(/,"time":"[^"]*"/, '');

  const full: AccessFields = {
    trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
    method: 'POST',
    route: '/v1/tools/:name/call',
    status: 200,
    tenant: 'acme',
    user: 'ana@example.com',
    tool: 'query_report_sales_by_region',
    kind: 'call',
    format: 'openai',
    outcome: 'ok',
    duration_ms: 12.3,
    bytes: 5120,
    fast_lane: true,
  };

  it.each([
    ['every field', full],
    [
      'the fields a bare request has',
      {
        trace_id: full.trace_id,
        method: 'GET',
        route: 'unmatched',
        status: 404,
        outcome: 'HTTP_404',
        duration_ms: 0.1,
      },
    ],
    [
      'ids that need escaping',
      {
        ...full,
        user: 'a "quoted" \\ back\nslash \u0001 é 😀',
        tenant: 'x'.repeat(150),
        fast_lane: false,
        bytes: Number.NaN,
      },
    ],
  ])('writes the line pino writes for log.info(fields, "request"): %s', (_name, fields) => {
    const ours = capture();
    writeAccessLine(ours.log, fields);
    const theirs = capture();
    theirs.log.info(fields, 'request');
    expect(ours.lines).toHaveLength(1);
    expect(timeless(ours.lines[0])).toBe(timeless(theirs.lines[0]));
    const parsed = JSON.parse(ours.lines[0]) as Record<string, unknown>;
    expect(new Date(parsed.time as string).toISOString()).toBe(parsed.time);
  });

  it.each([
    0,
    -0,
    0.5,
    7,
    12.3,
    99.9,
    1234.5,
    2.25,
    1e-7,
    123456789.1,
    1e12 + 0.5,
    1e21,
    200,
    5120,
  ])('writes the number pino writes: %p', (value) => {
    const fields = { ...full, duration_ms: value, bytes: value, status: value };
    const ours = capture();
    writeAccessLine(ours.log, fields);
    const theirs = capture();
    theirs.log.info(fields, 'request');
    expect(timeless(ours.lines[0])).toBe(timeless(theirs.lines[0]));
  });

  it('writes nothing below info', () => {
    const { lines, log } = capture('warn');
    writeAccessLine(log, full);
    expect(lines).toEqual([]);
  });

  it('goes through pino for a logger it did not make', () => {
    const lines: string[] = [];
    const log = pino({ base: undefined }, { write: (line: string) => void lines.push(line) });
    writeAccessLine(log, full);
    expect(JSON.parse(lines[0])).toMatchObject({ level: 30, msg: 'request', ...full });
  });
});
