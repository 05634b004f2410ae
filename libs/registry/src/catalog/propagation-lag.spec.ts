import { PropagationLag } from './propagation-lag';

const at = (iso: string) => Date.parse(iso);

describe('PropagationLag', () => {
  it('counts from the change to the notice, plus the rebuild', () => {
    const lag = new PropagationLag();
    lag.notified('acme', at('2026-12-02T10:00:00.050Z'));
    const seconds = lag.applied(
      'acme',
      ['2026-12-02 10:00:00.000+00'],
      at('2026-12-02T10:00:00.060Z'),
      at('2026-12-02T10:00:00.090Z'),
    );
    expect(seconds).toBeCloseTo(0.05 + 0.03, 6);
  });

  it('leaves out the time a tenant sat idle between the notice and the next request', () => {
    const lag = new PropagationLag();
    lag.notified('acme', at('2026-12-02T10:00:00.020Z'));
    const seconds = lag.applied(
      'acme',
      ['2026-12-02 10:00:00.000+00'],
      at('2026-12-02T11:00:00.000Z'),
      at('2026-12-02T11:00:00.010Z'),
    );
    expect(seconds).toBeCloseTo(0.02 + 0.01, 6);
  });

  it('counts to the install when no notice came (LISTEN down: the version was read)', () => {
    const lag = new PropagationLag();
    const seconds = lag.applied(
      'acme',
      ['2026-12-02 10:00:00.000+00'],
      at('2026-12-02T10:00:04.000Z'),
      at('2026-12-02T10:00:04.500Z'),
    );
    expect(seconds).toBeCloseTo(4.5, 6);
  });

  it('reports the change that waited longest, and keeps the first notice of a burst', () => {
    const lag = new PropagationLag();
    lag.notified('acme', at('2026-12-02T10:00:01.000Z'));
    lag.notified('acme', at('2026-12-02T10:00:02.000Z'));
    const seconds = lag.applied(
      'acme',
      ['2026-12-02 10:00:00.900+00', '2026-12-02 10:00:00.500+00'],
      at('2026-12-02T10:00:03.000Z'),
      at('2026-12-02T10:00:03.000Z'),
    );
    expect(seconds).toBeCloseTo(0.5, 6);
  });

  it('forgets the notice once a catalog is installed, and keeps tenants apart', () => {
    const lag = new PropagationLag();
    lag.notified('acme', at('2026-12-02T10:00:00.000Z'));
    lag.notified('globex', at('2026-12-02T10:00:00.000Z'));
    expect(lag.applied('acme', [], 0, 0)).toBeUndefined();
    const later = lag.applied(
      'acme',
      ['2026-12-02 10:00:05.000+00'],
      at('2026-12-02T10:00:05.100Z'),
      at('2026-12-02T10:00:05.100Z'),
    );
    expect(later).toBeCloseTo(0.1, 6);
    const other = lag.applied(
      'globex',
      ['2026-12-01 10:00:00.000+00'],
      at('2026-12-02T10:00:09.000Z'),
      at('2026-12-02T10:00:09.000Z'),
    );
    expect(other).toBeCloseTo(86_400, 3);
  });

  it('never gives a negative lag when the database clock is ahead', () => {
    const lag = new PropagationLag();
    lag.notified('acme', at('2026-12-02T10:00:00.000Z'));
    const seconds = lag.applied(
      'acme',
      ['2026-12-02 10:00:02.000+00'],
      at('2026-12-02T10:00:00.000Z'),
      at('2026-12-02T10:00:00.000Z'),
    );
    expect(seconds).toBe(0);
  });

  it('remembers at most its bound of tenants: notices of tenants never rebuilt do not pile up', () => {
    const lag = new PropagationLag(2);
    lag.notified('a', at('2026-12-02T10:00:00.000Z'));
    lag.notified('b', at('2026-12-02T10:00:01.000Z'));
    lag.notified('c', at('2026-12-02T10:00:02.000Z'));
    const build = [at('2026-12-02T10:00:10.000Z'), at('2026-12-02T10:00:10.500Z')] as const;
    // 'a' was forgotten (the oldest): its lag counts from the build's start
    expect(lag.applied('a', ['2026-12-02 10:00:00.000+00'], ...build)).toBeCloseTo(10.5, 6);
    // 'c' was kept: from its notice
    expect(lag.applied('c', ['2026-12-02 10:00:00.000+00'], ...build)).toBeCloseTo(2.5, 6);
  });
});
