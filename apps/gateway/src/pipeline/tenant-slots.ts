/** A call given up while it waited for a slot: its client went away. */
export class CallAbandoned extends Error {
  constructor() {
    super('the call was cancelled before it started: its client went away');
  }
}

interface Waiting {
  /** hands the waiter a slot (its release) */
  grant(release: () => void): void;
}

const NOTHING = (): void => undefined;

/**
 * Each tenant's concurrent-query slots on this instance. A call over the cap waits in its
 * tenant's queue, first come first served: a freed slot is handed to the first waiter
 * directly (no stampede of waiters retrying), and a waiter that gives up (its time is over,
 * or its client went away) leaves the queue. `released` is for holders that retry themselves
 * (a generated tool's data calls): it wakes when a slot is freed and nobody queues for it.
 */
export class TenantSlots {
  private readonly running = new Map<string, number>();
  private readonly queues = new Map<string, Waiting[]>();
  private readonly retrying = new Map<string, Array<() => void>>();

  /** `cap()`: the slots per tenant, 0 for no limit */
  constructor(private readonly cap: () => number) {}

  /** A slot now, or undefined at the cap (or while others queue for one). */
  tryTake(tenantId: string): (() => void) | undefined {
    const cap = this.cap();
    if (cap === 0) return NOTHING;
    const now = this.running.get(tenantId) ?? 0;
    if (now >= cap || (this.queues.get(tenantId)?.length ?? 0) > 0) return undefined;
    this.running.set(tenantId, now + 1);
    return this.releaser(tenantId);
  }

  /**
   * A slot within `waitMs` (in turn behind earlier waiters), or undefined when the time is
   * over; throws CallAbandoned when `signal` aborts first.
   */
  take(tenantId: string, waitMs: number, signal?: AbortSignal): Promise<(() => void) | undefined> {
    const now = this.tryTake(tenantId);
    if (now || waitMs === 0) return Promise.resolve(now);
    if (signal?.aborted) return Promise.reject(new CallAbandoned());
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(tenantId) ?? [];
      this.queues.set(tenantId, queue);
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = queue.indexOf(waiting);
        if (at >= 0) queue.splice(at, 1);
        if (queue.length === 0 && this.queues.get(tenantId) === queue) this.queues.delete(tenantId);
      };
      const waiting: Waiting = {
        grant: (release) => {
          leave();
          resolve(release);
        },
      };
      const onAbort = () => {
        leave();
        reject(new CallAbandoned());
      };
      const timer = setTimeout(() => {
        leave();
        resolve(undefined);
      }, waitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiting);
    });
  }

  /** Resolves when one of the tenant's slots is freed with nobody queued for it. */
  released(tenantId: string): Promise<void> {
    return new Promise<void>((resolve) => {
      const waiting = this.retrying.get(tenantId);
      if (waiting) waiting.push(resolve);
      else this.retrying.set(tenantId, [resolve]);
    });
  }

  private releaser(tenantId: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queues.get(tenantId)?.[0];
      // handed over: the slot stays taken, by the first waiter
      if (next) return next.grant(this.releaser(tenantId));
      const left = (this.running.get(tenantId) ?? 1) - 1;
      if (left <= 0) this.running.delete(tenantId);
      else this.running.set(tenantId, left);
      const waiting = this.retrying.get(tenantId);
      this.retrying.delete(tenantId);
      for (const wake of waiting ?? []) wake();
    };
  }
}
