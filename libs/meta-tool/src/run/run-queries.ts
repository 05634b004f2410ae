import type { TenantQuerySlots } from '@app/registry';

/** queries of one run that may be in flight at once; the rest wait their turn */
export const MAX_QUERIES_IN_FLIGHT = 2;

/** What a run's queries count against besides the run's own limits. */
export interface RunQueryBudget {
  tenantId: string;
  /** the tenant's concurrent-query cap; absent: uncapped (the CLI, specs) */
  slots?: TenantQuerySlots;
  /** queries the run's call already holds a slot for (1 for a tool call, 0 for an approval) */
  covered: number;
}

const UNCAPPED: TenantQuerySlots = {
  tryTake: () => () => undefined,
  released: () => new Promise<void>(() => undefined),
};

/**
 * Counts, caps and cancels the queries of one run. Every query is tied to the run's signal:
 * when the run ends (returns, throws, times out) the ones still running are cancelled in
 * Postgres. While it lives, each query holds a slot of the tenant's concurrent-query cap: the
 * first `covered` ride on the call's own slot, every other one takes a slot of its own and
 * waits (until the run ends) while the tenant is at its cap.
 */
export class RunQueries {
  count = 0;
  private inFlight = 0;
  private coveredInUse = 0;
  private readonly waiting: Array<() => void> = [];
  /** queries waiting for the call's own slot to come free */
  private readonly coveredWaiters: Array<() => void> = [];
  private readonly live = new Set<Promise<unknown>>();
  private readonly ended: Promise<void>;

  constructor(
    readonly maxQueries: number,
    readonly signal: AbortSignal,
    private readonly budget: RunQueryBudget = { tenantId: '', covered: Infinity },
  ) {
    this.ended = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  slot<T>(fn: () => Promise<T>): Promise<T> {
    this.count += 1;
    if (this.count > this.maxQueries)
      return Promise.reject(
        new Error(
          `this run made more than ${this.maxQueries} data calls; that is the limit per run`,
        ),
      );
    const work = this.run(fn);
    this.live.add(work);
    const forget = () => this.live.delete(work);
    work.then(forget, forget);
    return work;
  }

  /** Settles once every query this run started has ended (after the run, they are cancelled). */
  async settled(): Promise<void> {
    while (this.live.size > 0) await Promise.allSettled([...this.live]);
  }

  private async run<T>(fn: () => Promise<T>): Promise<T> {
    while (this.inFlight >= MAX_QUERIES_IN_FLIGHT) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.inFlight += 1;
    let release: (() => void) | undefined;
    try {
      release = await this.tenantSlot();
      return await fn();
    } finally {
      release?.();
      this.inFlight -= 1;
      this.waiting.shift()?.();
    }
  }

  /** A slot of the tenant's cap for one query, waited for while the run lives. */
  private async tenantSlot(): Promise<() => void> {
    const slots = this.budget.slots ?? UNCAPPED;
    for (;;) {
      if (this.signal.aborted) throw new Error('the run has ended');
      if (this.coveredInUse < this.budget.covered) {
        this.coveredInUse += 1;
        let released = false;
        return () => {
          if (released) return;
          released = true;
          this.coveredInUse -= 1;
          for (const wake of this.coveredWaiters.splice(0)) wake();
        };
      }
      const release = slots.tryTake(this.budget.tenantId);
      if (release) return release;
      await Promise.race([
        slots.released(this.budget.tenantId),
        new Promise<void>((resolve) => this.coveredWaiters.push(resolve)),
        this.ended,
      ]);
    }
  }
}
