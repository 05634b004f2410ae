import type { Side } from './ab';
import { alternate, medianOf, pairedRatio } from './ab';
import type { LoadResult, LoadSpec } from './load';
import { runLoad, warmUntilStable } from './load';
import { log } from './log';
import { measureCpu } from './cpu';
import { fmtMs, fmtRatio, fmtRps, fmtUs } from './stats';
import type { Tuning } from './types';

/** Gateway vs baseline under the same HTTP load, alternating, several rounds. */
export interface HttpComparison {
  gateway: LoadResult[];
  baseline: LoadResult[];
  /** medians over rounds of the per-round ratio gateway / baseline */
  throughputRatio: number;
  p50Ratio: number;
  p99Ratio: number;
  /** server CPU per request, gateway / baseline */
  cpuRatio: number;
  /** detail table (markdown lines) */
  table: string[];
}

export async function compareHttp(
  label: string,
  tuning: Tuning,
  gateway: Omit<LoadSpec, 'connections' | 'durationSec'>,
  baseline: Omit<LoadSpec, 'connections' | 'durationSec'>,
  pids: { gateway: number; baseline: number },
): Promise<HttpComparison> {
  const spec = (s: Omit<LoadSpec, 'connections' | 'durationSec'>, durationSec: number) => ({
    ...s,
    connections: tuning.connections,
    durationSec,
  });
  // The gateway's throughput climbs for seconds (JIT); the bare server's does not.
  const curve = await warmUntilStable(
    { ...gateway, connections: tuning.connections },
    tuning.warmupMinSec,
    tuning.warmupMaxSec,
  );
  await runLoad(spec(baseline, 0.5));
  const warmup = `gateway warm-up until stable (0.5 s slices): ${curve.map((r) => Math.round(r)).join(', ')} req/s; baseline 0.5 s`;
  log(`${label}: ${warmup}`);
  const sides: Side[] = [
    {
      name: 'gateway',
      run: () => measureCpu(pids.gateway, () => runLoad(spec(gateway, tuning.loadSec))),
    },
    {
      name: 'baseline',
      run: () => measureCpu(pids.baseline, () => runLoad(spec(baseline, tuning.loadSec))),
    },
  ];
  const results = await alternate(tuning.rounds, sides, (round, r) => {
    const g = r.get('gateway');
    const b = r.get('baseline');
    if (g && b)
      log(
        `${label} round ${round + 1}/${tuning.rounds}: gateway ${fmtRps(g.rps)} p99 ${fmtMs(g.p99)}; baseline ${fmtRps(b.rps)} p99 ${fmtMs(b.p99)}`,
      );
  });
  const g = results.get('gateway') ?? [];
  const b = results.get('baseline') ?? [];
  const failures = [...g, ...b].reduce((n, r) => n + r.failures, 0);
  if (failures > 0) throw new Error(`${label}: ${failures} failed requests during the load`);
  const us = (r: LoadResult) => (r.cpu ? r.cpu.userUs + r.cpu.systemUs : Number.NaN);
  const cpu = (r: LoadResult) =>
    r.cpu ? `${fmtUs(r.cpu.userUs + r.cpu.systemUs)} (${fmtUs(r.cpu.systemUs)} sys)` : 'n/a';
  const table = [
    `| round | gateway req/s | baseline req/s | ratio | gateway p50 | baseline p50 | gateway p99 | baseline p99 | p99 ratio | gateway CPU/req | baseline CPU/req |`,
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...g.map(
      (x, i) =>
        `| ${i + 1} | ${fmtRps(x.rps)} | ${fmtRps(b[i].rps)} | ${fmtRatio(x.rps / b[i].rps)} | ${fmtMs(x.p50)} | ${fmtMs(b[i].p50)} | ${fmtMs(x.p99)} | ${fmtMs(b[i].p99)} | ${fmtRatio(x.p99 / b[i].p99)} | ${cpu(x)} | ${cpu(b[i])} |`,
    ),
    `| median | ${fmtRps(medianOf(g, (r) => r.rps))} | ${fmtRps(medianOf(b, (r) => r.rps))} | ${fmtRatio(pairedRatio(g, b, (r) => r.rps))} | ${fmtMs(medianOf(g, (r) => r.p50))} | ${fmtMs(medianOf(b, (r) => r.p50))} | ${fmtMs(medianOf(g, (r) => r.p99))} | ${fmtMs(medianOf(b, (r) => r.p99))} | ${fmtRatio(pairedRatio(g, b, (r) => r.p99))} | ${fmtUs(medianOf(g, us))} | ${fmtUs(medianOf(b, us))} |`,
  ];
  return {
    gateway: g,
    baseline: b,
    throughputRatio: pairedRatio(g, b, (r) => r.rps),
    p50Ratio: pairedRatio(g, b, (r) => r.p50),
    p99Ratio: pairedRatio(g, b, (r) => r.p99),
    cpuRatio: pairedRatio(g, b, us),
    table: [...table, '', `${warmup}.`],
  };
}
