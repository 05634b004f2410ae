/** Small statistics over samples (milliseconds, requests per second...). */

export function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Linear-interpolated percentile, p in [0, 100]. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const rank = (p / 100) * (s.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return s[lo] + (s[hi] - s[lo]) * (rank - lo);
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  return values.reduce((a, b) => a + b, 0) / values.length;
}

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  if (ms < 1) return `${ms.toFixed(3)} ms`;
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

export function fmtUs(us: number): string {
  return Number.isFinite(us) ? `${Math.round(us)} µs` : 'n/a';
}

export function fmtRps(rps: number): string {
  return Number.isFinite(rps) ? `${Math.round(rps).toLocaleString('en-US')} req/s` : 'n/a';
}

export function fmtRatio(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : 'n/a';
}

export function fmtMb(kb: number): string {
  return Number.isFinite(kb) ? `${(kb / 1024).toFixed(0)} MB` : 'n/a';
}

/** Rounds for the JSON output: enough digits to compare, none to pretend. */
export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value)) return Number.NaN;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
