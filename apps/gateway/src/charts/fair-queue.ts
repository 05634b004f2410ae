/**
 * Jobs of many tenants waiting for one shared worker, taken in turn: each `next` serves the
 * tenant that was served longest ago, so a tenant with many jobs waits behind its own, never
 * in front of another tenant's. A tenant holds at most `perTenant` jobs (queued and running).
 */
export class FairQueue<J> {
  /** tenants with queued jobs, in serving order (a Map keeps insertion order) */
  private readonly queues = new Map<string, J[]>();
  /** each tenant's jobs held (queued and running) */
  private readonly held = new Map<string, number>();

  constructor(private readonly perTenant: number) {}

  /** Queues `job` for `tenant`; false (nothing queued) when the tenant holds its cap. */
  push(tenant: string, job: J): boolean {
    const held = this.held.get(tenant) ?? 0;
    if (held >= this.perTenant) return false;
    this.held.set(tenant, held + 1);
    const queue = this.queues.get(tenant);
    if (queue) queue.push(job);
    else this.queues.set(tenant, [job]);
    return true;
  }

  /** The next job, in turn between tenants; the tenant goes to the back of the line. */
  next(): { tenant: string; job: J } | undefined {
    for (const [tenant, queue] of this.queues) {
      const job = queue.shift();
      this.queues.delete(tenant);
      if (queue.length > 0) this.queues.set(tenant, queue);
      if (job !== undefined) return { tenant, job };
    }
    return undefined;
  }

  /** A job left the queue without running (its deadline passed): false if it was not queued. */
  remove(tenant: string, job: J): boolean {
    const queue = this.queues.get(tenant);
    const at = queue?.indexOf(job) ?? -1;
    if (!queue || at < 0) return false;
    queue.splice(at, 1);
    if (queue.length === 0) this.queues.delete(tenant);
    this.done(tenant);
    return true;
  }

  /** A job of `tenant` is over (ran, or was removed). */
  done(tenant: string): void {
    const left = (this.held.get(tenant) ?? 1) - 1;
    if (left <= 0) this.held.delete(tenant);
    else this.held.set(tenant, left);
  }
}
