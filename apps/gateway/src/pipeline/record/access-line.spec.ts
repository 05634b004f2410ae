import { Writable } from 'node:stream';
import pino from 'pino';
import { isoTime, isoTimeAt, writeAccessLine } from './access-line';
import type { AccessFields } from './access-line';
import { createLogger } from './logger';

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

  it('writes each line of a run of alike and different requests as pino does', () => {
    const variants: AccessFields[] = [
      full,
      full,
      { ...full, tenant: 'globex' },
      { ...full, user: undefined },
      { ...full, status: 429, outcome: 'RATE_LIMITED' },
      { ...full, tool: undefined, kind: 'list' },
      { ...full, trace_id: 'f'.repeat(32), duration_ms: 0.7, bytes: undefined },
      full,
    ];
    const ours = capture();
    const theirs = capture();
    for (const fields of variants) {
      writeAccessLine(ours.log, fields);
      theirs.log.info(fields, 'request');
    }
    expect(ours.lines.map(timeless)).toEqual(theirs.lines.map(timeless));
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
