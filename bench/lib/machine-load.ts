import { readFileSync } from 'node:fs';
import os from 'node:os';

/** Whole-machine CPU counters from /proc/stat (jiffies), to report how busy the box was. */
interface CpuCounters {
  busy: number;
  total: number;
}

function counters(): CpuCounters {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = v[3] + (v[4] ?? 0);
  const total = v.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** Call at the start; the returned function describes the load since then. */
export function watchMachineLoad(): () => string {
  const start = counters();
  const [startLoad] = os.loadavg();
  return () => {
    const end = counters();
    const busy = (end.busy - start.busy) / Math.max(1, end.total - start.total);
    const [endLoad] = os.loadavg();
    return `all cores ${(busy * 100).toFixed(0)}% busy on average during the run (bench, gateways, Postgres, Redis and anything else on the machine); 1-min load average ${startLoad.toFixed(2)} at start, ${endLoad.toFixed(2)} at end`;
  };
}
