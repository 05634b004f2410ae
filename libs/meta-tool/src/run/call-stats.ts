import { cut } from '../contract';
import type { CallStats } from '../store/generated-tool-stats.repository';

/**
 * Call statistics of generated tools, batched: counted in memory, written once a second at
 * most (one write per tool), never on the call path. A failed write is dropped.
 */
export class CallStatsBatch {
  private readonly pending = new Map<string, CallStats>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly write: (stats: CallStats) => Promise<void>) {}

  /** One call of the tool; `error` when it failed. */
  count(tenantId: string, name: string, error?: string): void {
    const key = `${tenantId}\u0000${name}`;
    const entry = this.pending.get(key) ?? { tenantId, name, calls: 0, errors: 0 };
    entry.calls += 1;
    if (error !== undefined) {
      entry.errors += 1;
      entry.lastError = cut(error, 500);
    }
    this.pending.set(key, entry);
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.flush();
      }, 1000);
      this.timer.unref();
    }
  }

  /** Writes what was counted since the last flush. */
  async flush(): Promise<void> {
    const entries = [...this.pending.values()];
    this.pending.clear();
    for (const e of entries) await this.write(e).catch(() => undefined);
  }

  /** Stops the timer and writes what is left. */
  close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    return this.flush();
  }
}
