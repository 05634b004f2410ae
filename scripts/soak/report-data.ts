import { percentile } from './model';
import type { Recorder, Sample } from './model';
import type { FaultMark } from './charts';

export type Point = { t: number; value: number; series: string };

/** The faults as the charts shade them (at least a second wide). */
export function faultMarks(rec: Recorder): FaultMark[] {
  return rec.phases.map((p) => ({
    name: p.name,
    start: p.start / 1000,
    end: Math.max(p.end, p.start + 1000) / 1000,
  }));
}

/** Throughput (ok and other answers/s) and latency (p50, p99) per 5 s bucket. */
export function perBucket(samples: Sample[]): { throughput: Point[]; latency: Point[] } {
  const bucket = 5000;
  const buckets = new Map<number, Sample[]>();
  for (const s of samples) {
    const b = Math.floor(s.t / bucket);
    if (!buckets.has(b)) buckets.set(b, []);
    buckets.get(b)!.push(s);
  }
  const throughput: Point[] = [];
  const latency: Point[] = [];
  for (const [b, list] of [...buckets.entries()].sort((x, y) => x[0] - y[0])) {
    const t = (b * bucket) / 1000;
    throughput.push({
      t,
      value: list.filter((s) => s.cls === 'ok').length / (bucket / 1000),
      series: 'ok answers/s',
    });
    throughput.push({
      t,
      value: list.filter((s) => s.cls !== 'ok').length / (bucket / 1000),
      series: 'other answers/s',
    });
    const ms = list.map((s) => s.ms).sort((x, y) => x - y);
    latency.push({ t, value: percentile(ms, 50), series: 'p50' });
    latency.push({ t, value: percentile(ms, 99), series: 'p99' });
  }
  return { throughput, latency };
}

/** The figures the report's tables show. */
export interface Figures {
  byClass: Map<string, number>;
  byOp: Map<string, { n: number; ok: number }>;
  phaseRows: string[];
  rssRows: string[];
  afterGc: AfterGcFigures;
  unexpected5xx: number;
  expected503: number;
  slowest: Sample[];
  staleDuring: number;
  staleSteady: number;
  wrong: number;
}

export function figures(rec: Recorder): Figures {
  const samples = rec.samples;
  const byClass = new Map<string, number>();
  for (const s of samples) byClass.set(s.cls, (byClass.get(s.cls) ?? 0) + 1);
  const byOp = new Map<string, { n: number; ok: number }>();
  for (const s of samples) {
    const e = byOp.get(s.op) ?? { n: 0, ok: 0 };
    e.n += 1;
    if (s.cls === 'ok') e.ok += 1;
    byOp.set(s.op, e);
  }
  const stale = samples.filter((s) => s.cls === 'stale_list');
  return {
    byClass,
    byOp,
    phaseRows: phaseRows(samples),
    rssRows: rssRows(rec),
    afterGc: afterGcFigures(rec),
    unexpected5xx: samples.filter((s) => s.status >= 500 && s.cls !== '503_unavailable_in_pause')
      .length,
    expected503: byClass.get('503_unavailable_in_pause') ?? 0,
    slowest: [...samples].sort((a, b) => b.ms - a.ms).slice(0, 10),
    staleDuring: stale.filter((s) => s.phase !== 'steady').length,
    staleSteady: stale.filter((s) => s.phase === 'steady').length,
    wrong: byClass.get('wrong_list') ?? 0,
  };
}

function phaseRows(samples: Sample[]): string[] {
  const phases = [...new Set(samples.map((s) => s.phase))];
  return phases.map((p) => {
    const list = samples.filter((s) => s.phase === p);
    const ms = list.map((s) => s.ms).sort((x, y) => x - y);
    const bad = list.filter((s) => s.cls !== 'ok').length;
    return `| ${p} | ${list.length} | ${bad} | ${percentile(ms, 50).toFixed(1)} | ${percentile(ms, 99).toFixed(1)} |`;
  });
}

/** Least-squares slope of `ys` over `ts` (seconds), in units per minute. */
export function slopePerMinute(points: Array<{ t: number; y: number }>): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mt = points.reduce((a, p) => a + p.t, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mt) * (p.y - my);
    den += (p.t - mt) ** 2;
  }
  return den ? (num / den) * 60 : NaN;
}

/**
 * Memory per replica after warm-up: RSS (first third, last third, max) and the slopes of RSS
 * and heap used over the last half of the run (MB/min), the figure "flat" is judged by.
 */
function rssRows(rec: Recorder): string[] {
  const rssBy = new Map<string, Array<{ t: number; mb: number }>>();
  for (const r of rec.rss.filter((x) => x.t > rec.warmupEnd)) {
    if (!rssBy.has(r.replica)) rssBy.set(r.replica, []);
    rssBy.get(r.replica)!.push(r);
  }
  const half = (rec.rss.at(-1)?.t ?? 0) / 2;
  const slope = (xs: Array<{ t: number; y: number }>) =>
    slopePerMinute(xs.filter((x) => x.t > half).map((x) => ({ t: x.t / 1000, y: x.y })));
  return [...rssBy.entries()].map(([name, samples]) => {
    const mbs = samples.map((s) => s.mb);
    const third = Math.max(1, Math.floor(mbs.length / 3));
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const heap = rec.heap.filter((h) => h.replica === name && h.t > rec.warmupEnd);
    const heapThird = Math.max(1, Math.floor(heap.length / 3));
    const heapAvg = (xs: typeof heap) => avg(xs.map((h) => h.heapMb)).toFixed(0);
    const rssSlope = slope(samples.map((s) => ({ t: s.t, y: s.mb })));
    const heapSlope = slope(heap.map((h) => ({ t: h.t, y: h.heapMb })));
    const series = heap.length ? `${heap[0].seriesLines} → ${heap.at(-1)!.seriesLines}` : '-';
    return `| ${name} | ${avg(mbs.slice(0, third)).toFixed(0)} | ${avg(mbs.slice(-third)).toFixed(0)} | ${Math.max(...mbs).toFixed(0)} | ${rssSlope.toFixed(2)} | ${heap.length ? heapAvg(heap.slice(0, heapThird)) : '-'} | ${heap.length ? heapAvg(heap.slice(-heapThird)) : '-'} | ${heapSlope.toFixed(2)} | ${series} |`;
  });
}

/** Growth below this, after a full GC, is "flat": 0.5 MB/min is 30 MB an hour. */
export const FLAT_MB_PER_MIN = 0.5;
/**
 * Below this much growth over a life's judged span, a slope is noise: RSS after GC moves by
 * up to ~1 MB from one sample to the next. A short run can only show growth above it.
 */
export const NOISE_MB = 2;

export interface AfterGcFigures {
  rows: string[];
  /** the steepest heap and RSS slopes after GC over replica lives long enough to judge */
  worstHeapSlope: number;
  worstRssSlope: number;
  judged: number;
  /** judged lives whose heap or RSS after GC grew (slope and growth both above the bars) */
  growing: string[];
}

/** Grows: faster than FLAT_MB_PER_MIN, and by more than NOISE_MB over the span. */
const grows = (slope: number, minutes: number) =>
  slope >= FLAT_MB_PER_MIN && slope * minutes >= NOISE_MB;

/** A replica life warms up (JIT, catalogs, connections, caches) for its first minute. */
export const LIFE_WARMUP_MS = 60_000;

/**
 * Memory after a full GC, per replica life (a killed replica starts a new one): first and
 * last sample after the life's warm-up and the least-squares slope over the life. A life is
 * judged when it has at least 4 samples over at least 75 seconds (20 s apart: a 3-minute run
 * judges the replicas that were not restarted).
 */
export function afterGcFigures(rec: Recorder): AfterGcFigures {
  // a life starts when its pid is first seen (RSS is sampled every 2 s from the start)
  const born = new Map<number, number>();
  for (const s of [...rec.rss, ...rec.afterGc].sort((a, b) => a.t - b.t)) {
    if (!born.has(s.pid)) born.set(s.pid, s.t);
  }
  const lives = new Map<string, Recorder['afterGc']>();
  const warm = (s: Recorder['afterGc'][number]) =>
    s.t > rec.warmupEnd && s.t >= (born.get(s.pid) ?? 0) + LIFE_WARMUP_MS;
  for (const s of rec.afterGc.filter(warm)) {
    const key = `${s.replica} (pid ${s.pid})`;
    if (!lives.has(key)) lives.set(key, []);
    lives.get(key)!.push(s);
  }
  let worstHeapSlope = NaN;
  let worstRssSlope = NaN;
  let judged = 0;
  const growing: string[] = [];
  const worst = (a: number, b: number) => (Number.isNaN(a) || b > a ? b : a);
  const rows = [...lives.entries()].map(([life, xs]) => {
    const heapSlope = slopePerMinute(xs.map((x) => ({ t: x.t / 1000, y: x.heapMb })));
    const rssSlope = slopePerMinute(xs.map((x) => ({ t: x.t / 1000, y: x.rssMb })));
    const minutes = (xs.at(-1)!.t - xs[0].t) / 60_000;
    if (xs.length >= 4 && minutes >= 1.25) {
      judged += 1;
      if (grows(heapSlope, minutes) || grows(rssSlope, minutes)) growing.push(life);
      worstHeapSlope = worst(worstHeapSlope, heapSlope);
      worstRssSlope = worst(worstRssSlope, rssSlope);
    }
    const f = (n: number) => n.toFixed(1);
    const span = (pick: (x: (typeof xs)[number]) => number | undefined) =>
      pick(xs[0]) === undefined ? '-' : `${f(pick(xs[0])!)} → ${f(pick(xs.at(-1)!)!)}`;
    return `| ${life} | ${xs.length} over ${minutes.toFixed(1)} min | ${f(xs[0].heapMb)} → ${f(xs.at(-1)!.heapMb)} | ${heapSlope.toFixed(2)} | ${f(xs[0].rssMb)} → ${f(xs.at(-1)!.rssMb)} | ${rssSlope.toFixed(2)} | ${span((x) => x.heapTotalMb)} | ${span((x) => x.externalMb)} |`;
  });
  return { rows, worstHeapSlope, worstRssSlope, judged, growing };
}
