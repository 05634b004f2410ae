import type { FoundVia, UsageSettings } from '../tokens';

/** The ways a caller finds a tool (FoundVia), in the order the usage view shows them. */
export const FOUND_VIA: readonly FoundVia[] = ['listed', 'selected', 'searched'];

/** Upper bounds (ms) of the latency histogram's buckets; one more bucket holds the rest. */
export const LATENCY_BOUNDS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000];

export const DEFAULT_USAGE: UsageSettings = { retentionDays: 30, flushMs: 10_000 };

/** One call as the usage table counts it: never its arguments or rows. */
export interface CallFacts {
  failed: boolean;
  /** a successful first page with no rows */
  empty: boolean;
  /** answered from the result cache (issue #41) */
  cached?: boolean;
  ms: number;
}

export interface Counts {
  calls: number;
  errors: number;
  empty: number;
  cached: number;
  latencyMsSum: number;
  latency: number[];
}

export interface UsageSummary {
  calls: number;
  errors: number;
  error_rate: number | null;
  empty: number;
  empty_rate: number | null;
  /** calls answered from the result cache, and their share of the calls */
  cached: number;
  cached_share: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
  found_via: Record<FoundVia, number>;
}

export interface ToolUsage {
  tool: string;
  days: number;
  summary: UsageSummary;
  /** calls per day, oldest first, days without calls included */
  daily: { day: string; calls: number; errors: number; empty: number }[];
}

/** The smallest bucket bound a call of `ms` fits under (the last bucket past every bound). */
export function latencyBucket(ms: number): number {
  const i = LATENCY_BOUNDS_MS.findIndex((bound) => ms <= bound);
  return i === -1 ? LATENCY_BOUNDS_MS.length : i;
}

/**
 * The q-quantile of a histogram, as the upper bound of the bucket it falls in (the last,
 * unbounded bucket reads as the largest bound): what p50/p95 a histogram can honestly say.
 */
export function histogramQuantile(buckets: readonly number[], q: number): number | null {
  const total = buckets.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let i = 0; i < buckets.length; i += 1) {
    seen += buckets[i];
    if (seen >= rank) return LATENCY_BOUNDS_MS[Math.min(i, LATENCY_BOUNDS_MS.length - 1)];
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1];
}
