import type { TenantQuerySlots } from '@app/registry';
import { RunQueries } from './run-queries';

/** A tenant cap like the gateway's (Limits): a counter, and who waits for a release. */
function cap(max: number) {
  let running = 0;
  let waiters: Array<() => void> = [];
  const slots: TenantQuerySlots = {
    tryTake: () => {
      if (running >= max) return undefined;
      running += 1;
      return () => {
        running -= 1;
        const woken = waiters;
        waiters = [];
        for (const wake of woken) wake();
      };
    },
    released: () => new Promise<void>((resolve) => waiters.push(resolve)),
  };
  return { slots, running: () => running };
}

/** A query the test ends by hand. */
function gate() {
  let open!: () => void;
  const done = new Promise<void>((resolve) => (open = resolve));
  return { done, open };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('RunQueries: a run’s data calls and the tenant’s cap (#28 item 1)', () => {
  it('the first query rides on the call’s own slot; the second takes a tenant slot while it lives', async () => {
    const tenant = cap(2);
    const run = new RunQueries(20, new AbortController().signal, {
      tenantId: 'acme',
      slots: tenant.slots,
      covered: 1,
    });
    const [a, b] = [gate(), gate()];
    const first = run.slot(() => a.done);
    const second = run.slot(() => b.done);
    await turn();
    expect(tenant.running()).toBe(1);
    b.open();
    await second;
    expect(tenant.running()).toBe(0);
    a.open();
    await first;
    await run.settled();
  });

  it('waits while the tenant is at its cap, and runs on the call’s slot once that is free', async () => {
    const tenant = cap(1);
    const other = tenant.slots.tryTake('acme')!; // another call of the tenant holds the cap
    const run = new RunQueries(20, new AbortController().signal, {
      tenantId: 'acme',
      slots: tenant.slots,
      covered: 1,
    });
    const [a, b] = [gate(), gate()];
    const started: string[] = [];
    const first = run.slot(() => (started.push('a'), a.done));
    const second = run.slot(() => (started.push('b'), b.done));
    await turn();
    expect(started).toEqual(['a']);
    a.open();
    await first;
    await turn();
    expect(started).toEqual(['a', 'b']);
    b.open();
    await second;
    other();
  });

  it('a run without a slot of its own (an approval) takes one per query; the run’s end gives up the wait', async () => {
    const tenant = cap(1);
    const other = tenant.slots.tryTake('acme')!;
    const ended = new AbortController();
    const run = new RunQueries(20, ended.signal, {
      tenantId: 'acme',
      slots: tenant.slots,
      covered: 0,
    });
    let ran = false;
    const waiting = run.slot(async () => {
      ran = true;
    });
    await turn();
    ended.abort();
    await expect(waiting).rejects.toThrow('the run has ended');
    await run.settled();
    expect(ran).toBe(false);
    expect(tenant.running()).toBe(1);
    other();
  });

  it('settled() waits for every query the run started, those that failed too', async () => {
    const run = new RunQueries(20, new AbortController().signal);
    const a = gate();
    let settledYet = false;
    void run.slot(() => a.done);
    run.slot(() => Promise.reject(new Error('x'))).catch(() => undefined);
    const settled = run.settled().then(() => (settledYet = true));
    await turn();
    expect(settledYet).toBe(false);
    a.open();
    await settled;
  });
});
