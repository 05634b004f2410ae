import { Metrics } from './metrics';

describe('Metrics', () => {
  it('records counters, gauges and histograms, hot-path series included', async () => {
    const metrics = new Metrics();
    const hot = metrics.counter('t_hot_total', { route: 'list' });
    const timed = metrics.histogram('t_seconds', { outcome: 'ok' });
    metrics.inc('t_calls_total', { code: 'ok' });
    metrics.set('t_up', 1);
    hot();
    timed(0.002);
    expect(metrics.value('t_calls_total', { code: 'ok' })).toBe(1);
    expect(metrics.value('t_hot_total', { route: 'list' })).toBe(1);
    expect(metrics.value('t_up')).toBe(1);
    expect(await metrics.render()).toMatch(/^t_seconds_count\{outcome="ok"\} 1$/m);
  });

  it('records nothing once disabled (METRICS_ENABLED=0), series bound before included', async () => {
    const metrics = new Metrics();
    const hot = metrics.counter('t_hot_total', { route: 'list' });
    const timed = metrics.histogram('t_seconds', { outcome: 'ok' });
    metrics.disable();
    hot();
    timed(0.002);
    metrics.inc('t_calls_total', { code: 'ok' });
    metrics.set('t_up', 1);
    metrics.observe('t_other_seconds', {}, 0.1);
    expect(metrics.value('t_hot_total', { route: 'list' })).toBe(0);
    expect(metrics.value('t_calls_total', { code: 'ok' })).toBe(0);
    expect(metrics.value('t_up')).toBe(0);
    const text = await metrics.render();
    expect(text).not.toMatch(/^t_seconds_count/m);
    expect(text).not.toMatch(/^t_hot_total\{/m);
    expect(text).not.toContain('t_other_seconds');
  });

  it("renders a hot-path histogram as prom-client's own observe does", async () => {
    const values = [0, 0.0005, 0.0007, 0.001, 0.3, 2.5, 10, 11, 1e9, 0.00049];
    const fast = new Metrics();
    const a = fast.histogram('t_seconds', { outcome: 'ok', route: 'r' });
    const b = fast.histogram('t_seconds', { outcome: 'err', route: 'r' });
    const plain = new Metrics();
    for (const v of values) {
      a(v);
      b(v / 2);
      plain.observe('t_seconds', { outcome: 'ok', route: 'r' }, v);
      plain.observe('t_seconds', { outcome: 'err', route: 'r' }, v / 2);
    }
    expect(await fast.render()).toBe(await plain.render());
  });

  it('adds to a series other observations share, and records again after a reset', async () => {
    const metrics = new Metrics();
    metrics.observe('t_seconds', { outcome: 'ok' }, 0.002);
    const timed = metrics.histogram('t_seconds', { outcome: 'ok' });
    timed(0.003);
    expect(await metrics.render()).toMatch(/^t_seconds_count\{outcome="ok"\} 2$/m);
    metrics.registry.resetMetrics();
    timed(0.003);
    expect(await metrics.render()).toMatch(/^t_seconds_count\{outcome="ok"\} 1$/m);
    expect(() => timed(Number.NaN)).toThrow(TypeError);
  });

  it("renders a hot-path counter as prom-client's own inc does, shared and after a reset", async () => {
    const fast = new Metrics();
    const plain = new Metrics();
    const hot = fast.counter('t_total', { route: 'a' });
    const bare = fast.counter('t_bare_total');
    for (let i = 0; i < 3; i++) {
      hot();
      bare();
      plain.inc('t_total', { route: 'a' });
      plain.inc('t_bare_total');
    }
    fast.inc('t_total', { route: 'b' }, 2);
    plain.inc('t_total', { route: 'b' }, 2);
    fast.inc('t_total', { route: 'a' });
    plain.inc('t_total', { route: 'a' });
    expect(await fast.render()).toBe(await plain.render());
    expect(fast.value('t_total', { route: 'a' })).toBe(4);
    fast.registry.resetMetrics();
    hot();
    expect(fast.value('t_total', { route: 'a' })).toBe(1);
    const wrong = fast.counter('t_total', { other: 'x' });
    expect(() => wrong()).toThrow(/label/i);
  });
});
