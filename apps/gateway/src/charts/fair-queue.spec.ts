import { FairQueue } from './fair-queue';

describe('FairQueue', () => {
  it("serves tenants in turn: another tenant's job waits behind at most one of each tenant's", () => {
    const queue = new FairQueue<string>(16);
    for (let i = 0; i < 8; i++) queue.push('acme', `a${i}`);
    queue.push('globex', 'g0');
    const order = Array.from({ length: 4 }, () => queue.next()?.job);
    expect(order).toEqual(['a0', 'g0', 'a1', 'a2']);
  });

  it('holds at most perTenant jobs of one tenant, queued and running; a finished one frees a place', () => {
    const queue = new FairQueue<number>(2);
    expect(queue.push('acme', 1)).toBe(true);
    expect(queue.push('acme', 2)).toBe(true);
    expect(queue.push('acme', 3)).toBe(false);
    expect(queue.push('globex', 4)).toBe(true);
    expect(queue.next()).toEqual({ tenant: 'acme', job: 1 });
    // running still counts
    expect(queue.push('acme', 5)).toBe(false);
    queue.done('acme');
    expect(queue.push('acme', 6)).toBe(true);
  });

  it('removes a queued job (its deadline passed) and frees its place; a job not queued is not removed', () => {
    const queue = new FairQueue<number>(2);
    queue.push('acme', 1);
    queue.push('acme', 2);
    expect(queue.remove('acme', 2)).toBe(true);
    expect(queue.remove('acme', 2)).toBe(false);
    expect(queue.push('acme', 3)).toBe(true);
    expect([queue.next()?.job, queue.next()?.job, queue.next()]).toEqual([1, 3, undefined]);
  });
});
