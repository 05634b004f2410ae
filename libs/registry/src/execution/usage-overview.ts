import { histogramQuantile, LATENCY_BOUNDS_MS } from './usage-figures';
import type { UsageSummary } from './usage-figures';

/** One tool's figures over a period, for the usage overview of every report. */
export type ToolFigures = Omit<UsageSummary, 'found_via' | 'cached' | 'cached_share'>;

export interface UsageCountsRow {
  tool: string;
  calls: number;
  errors: number;
  empty: number;
  latency_buckets: number[];
}

/** A tool no one called in the period: every figure zero or not applicable. */
export const NEVER_CALLED: ToolFigures = {
  calls: 0,
  errors: 0,
  error_rate: null,
  empty: 0,
  empty_rate: null,
  p50_ms: null,
  p95_ms: null,
};

/** The hourly rows of a period summed per tool (percentiles from the summed histograms). */
export function figuresByTool(rows: readonly UsageCountsRow[]): Map<string, ToolFigures> {
  const sums = new Map<string, { calls: number; errors: number; empty: number; hist: number[] }>();
  for (const r of rows) {
    const s = sums.get(r.tool) ?? {
      calls: 0,
      errors: 0,
      empty: 0,
      hist: new Array<number>(LATENCY_BOUNDS_MS.length + 1).fill(0),
    };
    s.calls += r.calls;
    s.errors += r.errors;
    s.empty += r.empty;
    r.latency_buckets.forEach((n, i) => (s.hist[i] += n));
    sums.set(r.tool, s);
  }
  const out = new Map<string, ToolFigures>();
  for (const [tool, s] of sums) {
    const ok = s.calls - s.errors;
    out.set(tool, {
      calls: s.calls,
      errors: s.errors,
      error_rate: s.calls === 0 ? null : s.errors / s.calls,
      empty: s.empty,
      empty_rate: ok === 0 ? null : s.empty / ok,
      p50_ms: histogramQuantile(s.hist, 0.5),
      p95_ms: histogramQuantile(s.hist, 0.95),
    });
  }
  return out;
}
