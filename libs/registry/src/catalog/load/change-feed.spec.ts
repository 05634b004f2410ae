import type { Metrics } from '../../metrics';
import { CATALOG_CHANNEL, CatalogChangeFeed } from './change-feed';
import type { ListenSource } from './change-feed';

/** A LISTEN connection the test drives: refuses while `down`, delivers notices and faults. */
class FakeListen implements ListenSource {
  down = false;
  attempts = 0;
  channels: string[] = [];
  private notify?: (payload: string) => void;
  private fail?: (err: Error) => void;

  listen: ListenSource['listen'] = (channel, onNotify, onError) => {
    this.attempts += 1;
    if (this.down) return Promise.reject(new Error('connection refused'));
    this.channels.push(channel);
    this.notify = onNotify;
    this.fail = onError;
    return Promise.resolve(() => Promise.resolve());
  };

  send(payload: string): void {
    this.notify?.(payload);
  }

  drop(): void {
    this.fail?.(new Error('terminated'));
  }
}

function fakeMetrics(): { metrics: Metrics; gauge: () => number | undefined } {
  let up: number | undefined;
  const metrics = {
    describe: () => undefined,
    set: (_name: string, value: number) => (up = value),
  } as unknown as Metrics;
  return { metrics, gauge: () => up };
}

function feedOver(source: FakeListen) {
  const { metrics, gauge } = fakeMetrics();
  const feed = new CatalogChangeFeed(source, metrics, {
    statementTimeoutMs: 1000,
    maxResultBytes: 1024,
    cacheTtlSeconds: 60,
    staleAfterMs: 1000,
  });
  const seen: string[] = [];
  feed.onChange((tenant) => seen.push(tenant));
  return { feed, seen, gauge };
}

describe('CatalogChangeFeed', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('listens on the catalog channel and passes each notice on, after a first "*"', async () => {
    const source = new FakeListen();
    const { feed, seen, gauge } = feedOver(source);
    await feed.start();
    expect(source.channels).toEqual([CATALOG_CHANNEL]);
    expect(feed.isListening).toBe(true);
    expect(gauge()).toBe(1);
    source.send('acme');
    expect(seen).toEqual(['*', 'acme']);
  });

  it('reconnects with a doubling delay and announces "*" once it is back', async () => {
    const source = new FakeListen();
    source.down = true;
    const { feed, seen, gauge } = feedOver(source);
    await feed.start();
    expect(feed.isListening).toBe(false);
    expect(gauge()).toBe(0);
    await jest.advanceTimersByTimeAsync(100);
    expect(source.attempts).toBe(2);
    await jest.advanceTimersByTimeAsync(199);
    expect(source.attempts).toBe(2);
    source.down = false;
    await jest.advanceTimersByTimeAsync(1);
    expect(source.attempts).toBe(3);
    expect(feed.isListening).toBe(true);
    expect(seen).toEqual(['*']);
  });

  it('stops trusting memory when the connection drops, and starts over after it', async () => {
    const source = new FakeListen();
    const { feed, seen } = feedOver(source);
    await feed.start();
    source.drop();
    expect(feed.isListening).toBe(false);
    expect(feed.freshness.trusted(Date.now() - 5000)).toBe(false);
    await jest.advanceTimersByTimeAsync(100);
    expect(feed.isListening).toBe(true);
    expect(seen).toEqual(['*', '*']);
  });

  it('a listener that throws does not keep the others from hearing the change', async () => {
    const source = new FakeListen();
    const { feed, seen } = feedOver(source);
    feed.onChange(() => {
      throw new Error('boom');
    });
    const after: string[] = [];
    feed.onChange((t) => after.push(t));
    feed.publish('acme');
    expect(seen).toEqual(['acme']);
    expect(after).toEqual(['acme']);
  });

  it('does not reconnect after shutdown', async () => {
    const source = new FakeListen();
    source.down = true;
    const { feed } = feedOver(source);
    await feed.start();
    await feed.onApplicationShutdown();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(source.attempts).toBe(1);
  });

  it('an unsubscribed listener hears nothing more', () => {
    const { feed, seen } = feedOver(new FakeListen());
    const off = feed.onChange(() => undefined);
    off();
    feed.publish('acme');
    expect(seen).toEqual(['acme']);
  });
});
