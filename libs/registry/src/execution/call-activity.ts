import { Injectable } from '@nestjs/common';

/** One minute of one tenant's tool calls. */
export interface CallBucket {
  /** start of the minute, epoch ms */
  minute: number;
  calls: number;
  errors: number;
}

const MINUTE = 60_000;

/**
 * Tool calls and failed calls per tenant and minute over the last `keepMinutes`, in memory
 * on this instance: what the admin console's health screen shows for the caller's tenant.
 * A call that ends as `is_error` or throws counts as an error.
 */
@Injectable()
export class CallActivity {
  private readonly tenants = new Map<string, CallBucket[]>();
  private keepMinutes = 15;
  private now: () => number = Date.now;

  /** For tests: a window of `keepMinutes` on a clock of their own. */
  static withClock(keepMinutes: number, now: () => number): CallActivity {
    const activity = new CallActivity();
    activity.keepMinutes = keepMinutes;
    activity.now = now;
    return activity;
  }

  record(tenantId: string, failed: boolean): void {
    const minute = Math.floor(this.now() / MINUTE) * MINUTE;
    let buckets = this.tenants.get(tenantId);
    if (!buckets) this.tenants.set(tenantId, (buckets = []));
    let last = buckets[buckets.length - 1];
    if (!last || last.minute !== minute) {
      last = { minute, calls: 0, errors: 0 };
      buckets.push(last);
      const oldest = minute - (this.keepMinutes - 1) * MINUTE;
      while (buckets.length > 0 && buckets[0].minute < oldest) buckets.shift();
    }
    last.calls += 1;
    if (failed) last.errors += 1;
  }

  /** The tenant's last `keepMinutes` minutes, oldest first, with empty minutes filled in. */
  recent(tenantId: string): CallBucket[] {
    const current = Math.floor(this.now() / MINUTE) * MINUTE;
    const byMinute = new Map((this.tenants.get(tenantId) ?? []).map((b) => [b.minute, b]));
    const out: CallBucket[] = [];
    for (let i = this.keepMinutes - 1; i >= 0; i -= 1) {
      const minute = current - i * MINUTE;
      const bucket = byMinute.get(minute);
      out.push({ minute, calls: bucket?.calls ?? 0, errors: bucket?.errors ?? 0 });
    }
    return out;
  }
}
