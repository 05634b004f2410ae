import { readFileSync } from 'node:fs';
import type { Cluster, Replica } from '../cluster/cluster';
import { measureAfterGc } from './gc-probe';
import type { Recorder } from './model';
import type { SoakResources } from './resources';

type Fault = [at: number, name: string, run: () => Promise<void>];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The replica killed comes back (the supervisor): the fault lasts until HAProxy routes to it. */
async function killReplica(c: Cluster): Promise<void> {
  const victim = c.replicas[0];
  const gone = victim.exited();
  victim.kill('SIGKILL');
  await gone;
  const until = Date.now() + 90_000;
  while ((await c.upReplicas().catch(() => [])).length < c.replicas.length) {
    if (Date.now() > until) throw new Error('the killed replica did not come back');
    await sleep(200);
  }
}

function faultsOf(own: SoakResources, c: Cluster, rec: Recorder): Fault[] {
  return [
    [0.2, 'kill-replica', () => killReplica(c)],
    [
      0.38,
      'restart-redis',
      async () => {
        await own.redis.stop();
        await own.redis.start();
      },
    ],
    [
      0.55,
      'terminate-listen',
      async () => {
        const r = await own.admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'gateway-listener'`,
          [own.dbName],
        );
        rec.notes.push(`terminate-listen ended ${r.rowCount} LISTEN connection(s)`);
      },
    ],
    [
      0.72,
      'pause-postgres',
      async () => {
        await own.pgProxy.stop();
        await sleep(5000);
        await own.pgProxy.start(own.proxyPort);
      },
    ],
  ];
}

async function fault(rec: Recorder, name: string, fn: () => Promise<void>): Promise<void> {
  const start = rec.now();
  process.stderr.write(`[soak] ${(start / 1000).toFixed(0)} s: ${name}\n`);
  // the phase exists from its start: answers arriving during the fault belong to it
  const phase = { name, start, end: Infinity };
  rec.phases.push(phase);
  await fn();
  phase.end = rec.now();
}

/** Runs the fault script over the run (each fault at its share of `totalMs`). */
export async function runFaults(
  own: SoakResources,
  c: Cluster,
  rec: Recorder,
  totalMs: number,
  stopped: () => boolean,
): Promise<void> {
  for (const [at, name, fn] of faultsOf(own, c, rec)) {
    const wait = at * totalMs - rec.now();
    if (wait > 0) await sleep(wait);
    if (stopped()) return;
    await fault(rec, name, fn).catch((err: unknown) =>
      rec.notes.push(`${name} failed: ${String(err)}`),
    );
  }
}

/** One figure of a Prometheus text answer (the first sample of that name). */
function metric(text: string, name: string): number {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

/** The replica's heap used, external memory and number of metric series (its /metrics). */
async function sampleHeap(r: Replica, rec: Recorder): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${r.port}/metrics`, {
    signal: AbortSignal.timeout(1500),
  });
  if (!res.ok) return;
  const text = await res.text();
  const heap = metric(text, 'nodejs_heap_size_used_bytes');
  if (!Number.isFinite(heap)) return;
  rec.heap.push({
    t: rec.now(),
    replica: r.name,
    heapMb: heap / 2 ** 20,
    heapTotalMb: metric(text, 'nodejs_heap_size_total_bytes') / 2 ** 20,
    externalMb: metric(text, 'nodejs_external_memory_bytes') / 2 ** 20,
    seriesLines: text.split('\n').filter((l) => l && !l.startsWith('#')).length,
  });
}

/** Heap and RSS of every replica right after a full GC (through its inspector). */
async function sampleAfterGc(
  c: Cluster,
  rec: Recorder,
  inspectPorts: Map<string, number>,
): Promise<void> {
  await Promise.all(
    c.replicas.map(async (r) => {
      const port = inspectPorts.get(r.name);
      if (!r.pid || !port) return;
      const t = rec.now();
      // a replica between lives (killed, restarting) has no inspector: no sample then
      const m = await measureAfterGc(port).catch(() => undefined);
      if (m) rec.afterGc.push({ t, replica: r.name, pid: r.pid, ...m });
    }),
  );
}

/**
 * Samples each replica's RSS every 2 s (from /proc), its heap every 10 s (from its /metrics,
 * so heap growth and RSS growth can be told apart), and both after a full GC every 20 s
 * and once more when traffic has stopped; returns what stops it.
 */
export function sampleRss(
  c: Cluster,
  rec: Recorder,
  inspectPorts: Map<string, number>,
): () => Promise<void> {
  let tick = 0;
  const timer = setInterval(() => {
    tick += 1;
    if (tick % 10 === 0) void sampleAfterGc(c, rec, inspectPorts);
    for (const r of c.replicas) {
      if (!r.pid) continue;
      if (tick % 5 === 0) void sampleHeap(r, rec).catch(() => undefined);
      try {
        const status = readFileSync(`/proc/${r.pid}/status`, 'utf8');
        const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
        if (kb) rec.rss.push({ t: rec.now(), replica: r.name, pid: r.pid, mb: kb / 1024 });
      } catch {
        // the replica is between lives (killed, restarting)
      }
    }
  }, 2000);
  return async () => {
    clearInterval(timer);
    await sampleAfterGc(c, rec, inspectPorts);
  };
}
