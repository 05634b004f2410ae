import { CallAbandoned, TenantSlots } from './tenant-slots';

describe('TenantSlots', () => {
  afterEach(() => jest.useRealTimers());

  it('hands a freed slot to the first waiter, in order, and keeps other tenants apart', async () => {
    const slots = new TenantSlots(() => 1);
    const first = slots.tryTake('acme')!;
    expect(slots.tryTake('acme')).toBeUndefined();
    expect(slots.tryTake('globex')).toBeDefined();
    const order: string[] = [];
    const a = slots.take('acme', 60_000).then((r) => (order.push('a'), r));
    const b = slots.take('acme', 60_000).then((r) => (order.push('b'), r));
    // a newcomer does not jump the queue
    expect(slots.tryTake('acme')).toBeUndefined();
    first();
    (await a)!();
    (await b)!();
    expect(order).toEqual(['a', 'b']);
    expect(slots.tryTake('acme')).toBeDefined();
  });

  it('gives up a waiter whose time is over, and one whose client went away, freeing its place', async () => {
    jest.useFakeTimers();
    const slots = new TenantSlots(() => 1);
    const held = slots.tryTake('acme')!;
    const timedOut = slots.take('acme', 3000);
    jest.advanceTimersByTime(3000);
    await expect(timedOut).resolves.toBeUndefined();
    const client = new AbortController();
    const abandoned = slots.take('acme', 3000, client.signal);
    const next = slots.take('acme', 3000);
    client.abort();
    await expect(abandoned).rejects.toBeInstanceOf(CallAbandoned);
    held();
    const release = await next;
    expect(release).toBeDefined();
  });

  it('has no limit at 0', async () => {
    const slots = new TenantSlots(() => 0);
    for (let i = 0; i < 100; i++) expect(slots.tryTake('acme')).toBeDefined();
    await expect(slots.take('acme', 0)).resolves.toBeDefined();
  });
});
