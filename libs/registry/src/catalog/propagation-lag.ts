import { LRUCache } from 'lru-cache';
import type { Metrics } from '../metrics';
/** Buckets in seconds: a NOTIFY round trip (milliseconds) up to a missed one (minutes). */
export const PROPAGATION_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * Catalog change-propagation lag: from a report change (its `updated_at`, stamped by the
 * database in the changing transaction) to this instance holding a catalog that serves it.
 * Catalogs are rebuilt lazily, by the first request after a change, so the time a tenant
 * sat idle between the instance learning of the change (the NOTIFY, or finding a newer
 * version) and that request is not counted: the instance would have served the change to
 * a request at any moment of it. What is counted is
 *
 *   (learned - changed) + (installed - build started)
 *
 * for the oldest change a refresh applies (the one that waited longest). Pure: the clock
 * is passed in. Bounded: see `learned`.
 */
export class PropagationLag {
  /**
   * When each changed tenant was first learned of, until its next rebuild. Every instance
   * hears of every tenant's changes, also of tenants it never serves (whose entry no rebuild
   * would remove): the oldest go first beyond `max`, and such a tenant's lag is then counted
   * from its build's start.
   */
  private readonly learned: LRUCache<string, number>;

  constructor(max = 10_000) {
    this.learned = new LRUCache({ max });
  }

  /** The instance learned that a tenant changed (keeps the first moment until a rebuild). */
  notified(tenantId: string, now: number): void {
    if (!this.learned.has(tenantId)) this.learned.set(tenantId, now);
  }

  /**
   * A catalog built from `buildStart` to `installed` applied changes stamped `changedAt`
   * (database timestamps as text); the lag in seconds, or undefined when nothing changed.
   * A database clock ahead of this one never gives a negative lag.
   */
  applied(
    tenantId: string,
    changedAt: readonly string[],
    buildStart: number,
    installed: number,
  ): number | undefined {
    const learned = Math.min(this.learned.get(tenantId) ?? buildStart, buildStart);
    this.learned.delete(tenantId);
    const stamps = changedAt.map((s) => Date.parse(s)).filter((t) => Number.isFinite(t));
    if (stamps.length === 0) return undefined;
    const oldest = Math.min(...stamps);
    const waited = Math.max(0, learned - oldest);
    return (waited + Math.max(0, installed - buildStart)) / 1000;
  }

  /** `applied`, observed in gateway_catalog_propagation_seconds when something changed. */
  observe(
    metrics: Pick<Metrics, 'observe'>,
    tenantId: string,
    changedAt: readonly string[],
    buildStart: number,
    installed: number,
  ): void {
    const lag = this.applied(tenantId, changedAt, buildStart, installed);
    if (lag !== undefined)
      metrics.observe('gateway_catalog_propagation_seconds', {}, lag, PROPAGATION_BUCKETS);
  }
}
