import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import pino from 'pino';
import { createLogger, isoTime, LineBatch, writeAccessLine } from './logger';
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
  it('writes lines in order, one chunk per full batch, and the rest when flushed', () => {
    const chunks: string[] = [];
    const batch = new LineBatch({ write: (chunk: string) => chunks.push(chunk) }, 10);
    batch.write('aaaa\n');
    expect(chunks).toEqual([]);
    batch.write('bbbbb\n');
    expect(chunks).toEqual(['aaaa\nbbbbb\n']);
    batch.write('c\n');
    let flushed = false;
    batch.flush(() => (flushed = true));
    expect(flushed).toBe(true);
    expect(chunks).toEqual(['aaaa\nbbbbb\n', 'c\n']);
    batch.flush();
    expect(chunks).toHaveLength(2);
  });

  it("is what pino's flush empties: every line of a logger reaches the output", () => {
    const chunks: string[] = [];
    const batch = new LineBatch({ write: (chunk: string) => chunks.push(chunk) }, 4096);
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
