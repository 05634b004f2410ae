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
});
