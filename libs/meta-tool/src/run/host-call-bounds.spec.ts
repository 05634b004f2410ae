import { hostArguments, hostResultJson, jsonNesting } from './host-call-bounds';

describe('bounds of the data calls a sandboxed run makes (#28 item 9)', () => {
  it('refuses text nested 200,000 levels before parsing it, in milliseconds', () => {
    const deep = '{"a":'.repeat(200_000) + '1' + '}'.repeat(200_000);
    const started = performance.now();
    expect(() => hostArguments('report', deep.slice(0, 500_000))).toThrow(
      /^the arguments of ctx\.report are nested more than 32 levels deep; nothing was run$/,
    );
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('refuses text over 512 KB, and text that is not JSON', () => {
    expect(() => hostArguments('query', JSON.stringify(['x'.repeat(600_000)]))).toThrow(
      /^the arguments of ctx\.query are 600004 characters of JSON, over the 524288 limit/,
    );
    expect(() => hostArguments('query', '[1,')).toThrow(/are not JSON/);
  });

  it('counts nesting outside strings only', () => {
    expect(jsonNesting(JSON.stringify({ a: '[[[[{{{{', b: ['\\"[['] }))).toBe(2);
    expect(hostArguments('query', JSON.stringify(['[['.repeat(1000)]))).toEqual([
      '[['.repeat(1000),
    ]);
  });

  it('passes a 32-level value and refuses a 33-level one, parsed or as a result', () => {
    let ok: unknown = 1;
    for (let i = 0; i < 32; i++) ok = [ok];
    expect(hostArguments('report', JSON.stringify(ok))).toEqual(ok);
    expect(hostResultJson('report', ok)).toBe(JSON.stringify(ok));
    const over = [ok];
    expect(() => hostArguments('report', JSON.stringify(over))).toThrow(/nested more than 32/);
    expect(() => hostResultJson('query', over)).toThrow(
      /^the values in the result of ctx\.query are nested more than 32 levels deep/,
    );
  });

  it('refuses a result past 512 KB of JSON', () => {
    const rows = Array.from({ length: 1000 }, () => ({ t: 'x'.repeat(1000) }));
    expect(() => hostResultJson('query', rows)).toThrow(/larger than 524288 bytes/);
  });
});
