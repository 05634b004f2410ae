import type { Cluster } from '../cluster/cluster';
import { AdminWriters } from './admin-writers';
import { runFaults, sampleRss } from './faults';
import { namesOf } from './gateway-client';
import type { GatewayClient } from './gateway-client';
import type { Judge } from './judge';
import { McpAgents } from './mcp-agents';
import { CONTEXTS, FORMATS, GRACE_MS, LISTERS } from './model';
import type { CatalogModel, Recorder } from './model';
import type { SoakResources } from './resources';
import { RestOps } from './rest-ops';
import type { Timed } from './timed';

export interface TrafficParts {
  own: SoakResources;
  cluster: Cluster;
  gw: GatewayClient;
  rec: Recorder;
  model: CatalogModel;
  judge: Judge;
  timed: Timed;
  totalMs: number;
  /** each replica's inspector port, for the memory measured after a full GC */
  inspectPorts: Map<string, number>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Mixed traffic for `totalMs` while the fault script runs: 6 workers (REST lists and calls,
 * MCP agents), an admin writer every 1.5 s, a proposal every 20 s. Returns how many MCP
 * sessions the agents had to open again.
 */
export async function runTraffic(p: TrafficParts): Promise<number> {
  const { own, rec } = p;
  const rest = new RestOps(p.gw, rec, p.judge, p.timed);
  const agents = new McpAgents(p.gw, rec, p.judge, p.timed);
  own.onCleanup(() => agents.closeAll());
  await agents.connectAll();
  const writers = new AdminWriters(p.gw, rec, p.model, p.judge, p.timed, own.runId, own.truthUrl());
  await writers.connect();
  own.onCleanup(() => writers.close());
  let stopped = false;
  const stopRss = sampleRss(p.cluster, rec, p.inspectPorts);
  const faultScript = runFaults(own, p.cluster, rec, p.totalMs, () => stopped);
  const loops = startLoops(rest, agents, writers, () => stopped);
  const progress = setInterval(
    () =>
      process.stderr.write(
        `[soak] ${(rec.now() / 1000).toFixed(0)} s, ${rec.samples.length} requests\n`,
      ),
    30_000,
  );
  await sleep(p.totalMs);
  stopped = true;
  clearInterval(progress);
  await Promise.all(loops);
  await faultScript;
  await stopRss();
  return agents.sessionsLost;
}

/** 6 workers of REST and MCP traffic, the admin writer every 1.5 s, a proposal every 20 s. */
function startLoops(
  rest: RestOps,
  agents: McpAgents,
  writers: AdminWriters,
  stopped: () => boolean,
): Array<Promise<void>> {
  const worker = async () => {
    while (!stopped()) {
      const roll = Math.random();
      if (roll < 0.45) await rest.list();
      else if (roll < 0.8) await rest.call();
      else await agents.op();
    }
  };
  const every = async (ms: number, fn: () => Promise<void>) => {
    while (!stopped()) {
      await sleep(ms);
      if (!stopped()) await fn().catch(() => undefined);
    }
  };
  const concurrency = 6;
  return [
    ...Array.from({ length: concurrency }, worker),
    every(1500, () => writers.write()),
    every(20_000, () => writers.proposeAndApprove()),
  ];
}

/** Stale lists after recovery: a final, quiet check of every lister on every replica. */
export async function finalCheck(p: TrafficParts, replicas: number): Promise<number> {
  await sleep(GRACE_MS);
  let finalStale = 0;
  for (const w of LISTERS)
    for (const format of FORMATS)
      for (const context of CONTEXTS)
        for (let i = 0; i < replicas; i++) {
          const t0 = p.rec.now();
          const r = await p.gw.list(w, format, context);
          if (
            r.status !== 200 ||
            p.judge.list(w, format, context, namesOf(format, r.json), t0, p.rec.now()) !== 'ok'
          )
            finalStale += 1;
        }
  return finalStale;
}
