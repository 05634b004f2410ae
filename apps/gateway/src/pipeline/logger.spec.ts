import { Writable } from 'node:stream';
import { createLogger, isoTime } from './logger';

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
