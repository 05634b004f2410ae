import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  buildIfNeeded,
  freePort,
  HAPROXY_MISSING,
  haproxyPath,
  ROOT,
  startCluster,
} from '../cluster/cluster';
import { GatewayClient } from './gateway-client';
import { Judge, probeSoakVisibility, readBaseline } from './judge';
import { CatalogModel, Recorder } from './model';
import { writeReport } from './report';
import { SoakResources } from './resources';
import { Timed } from './timed';
import { finalCheck, runTraffic } from './traffic';

/**
 * `npm run soak -- --minutes M --replicas N`: mixed traffic through HAProxy to N replicas
 * while a fault script runs, every answer checked against the catalog of that moment; writes
 * bench/SOAK.md with charts. Everything it starts is its own: a database cloned from the
 * test template, a private redis-server on a free port, a TCP proxy in front of Postgres
 * (the machine's Postgres and Redis are never stopped or flushed). Traffic only to 127.0.0.1.
 * The parts: resources.ts (what it owns), gateway-client.ts, judge.ts, traffic.ts (rest-ops,
 * mcp-agents, admin-writers, faults), report.ts (report-data, report-markdown, charts).
 */

interface Options {
  minutes: number;
  replicas: number;
  out: string;
  /** `gw1:NAME=VALUE`: an environment variable for one replica only (A/B experiments) */
  replicaEnv: Record<string, Record<string, string>>;
}

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '3' },
      replicas: { type: 'string', default: '2' },
      out: { type: 'string', default: path.join(ROOT, 'bench/SOAK.md') },
      'replica-env': { type: 'string', multiple: true, default: [] },
    },
  });
  const replicaEnv: Record<string, Record<string, string>> = {};
  for (const item of values['replica-env']!) {
    const m = /^(gw\d+):([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(item);
    if (!m)
      throw new Error(
        `--replica-env ${item}: expected gwN:NAME=VALUE, e.g. gw1:MALLOC_ARENA_MAX=2`,
      );
    (replicaEnv[m[1]] ??= {})[m[2]] = m[3];
  }
  const minutes = Number(values.minutes);
  const replicas = Number(values.replicas);
  if (!(minutes > 0 && minutes <= 120) || !Number.isInteger(replicas) || replicas < 2) {
    throw new Error('usage: npm run soak -- --minutes M (0-120] --replicas N (>= 2)');
  }
  return { minutes, replicas, out: values.out!, replicaEnv };
}

async function soak(
  own: SoakResources,
  { minutes, replicas, out, replicaEnv }: Options,
): Promise<void> {
  process.stderr.write(
    `[soak] ${minutes} min, ${replicas} replicas; database ${own.dbName}, private Redis :${own.redis.port}, Postgres via proxy :${own.proxyPort}; logs ${path.relative(ROOT, own.logFile)}\n`,
  );
  const { inspectPorts, withInspector } = await withInspectors(replicas, replicaEnv);
  const cluster = await startCluster({
    replicas,
    port: 0,
    supervise: true,
    log: (line) => own.log.write(`${new Date().toISOString()} ${line}\n`),
    env: own.gatewayEnv(),
    replicaEnv: withInspector,
  });
  own.cluster = cluster;
  const gw = new GatewayClient(cluster.url, own.secret);
  const baseline = await readBaseline(gw);
  const seesSoak = await probeSoakVisibility(gw);
  const totalMs = minutes * 60_000;
  const rec = new Recorder(Date.now());
  rec.warmupEnd = Math.min(20_000, totalMs * 0.1);
  const model = new CatalogModel(rec);
  const judge = new Judge(baseline, seesSoak, model, rec, own.log);
  const timed = new Timed(rec, model);
  const parts = { own, cluster, gw, rec, model, judge, timed, totalMs, inspectPorts };
  const sessionsLost = await runTraffic(parts);
  parts.timed.judgeAll();
  const finalStale = await finalCheck(parts, replicas);
  rec.notes.push(
    `MCP sessions the clients had to open again (told "session not found"): ${sessionsLost}`,
  );
  await writeReport({
    rec,
    minutes,
    replicas,
    out,
    finalStale,
    seesSoak: [...seesSoak],
    replicaEnv,
  });
}

/**
 * Each replica gets the inspector on a port of its own on 127.0.0.1 (kept across restarts),
 * so the soak can collect garbage before it measures what a replica holds (gc-probe.ts).
 */
async function withInspectors(
  replicas: number,
  replicaEnv: Record<string, Record<string, string>>,
): Promise<{
  inspectPorts: Map<string, number>;
  withInspector: Record<string, Record<string, string>>;
}> {
  const inspectPorts = new Map<string, number>();
  const withInspector: Record<string, Record<string, string>> = {};
  for (let i = 1; i <= replicas; i++) {
    const name = `gw${i}`;
    const port = await freePort();
    inspectPorts.set(name, port);
    const env = replicaEnv[name] ?? {};
    // replaces the soak's own NODE_OPTIONS for the replicas; --replica-env adds to it
    const options = `${env.NODE_OPTIONS ?? ''} --inspect=127.0.0.1:${port}`.trim();
    withInspector[name] = { ...env, NODE_OPTIONS: options };
  }
  return { inspectPorts, withInspector };
}

async function main(): Promise<void> {
  const options = readOptions();
  if (!haproxyPath()) throw new Error(HAPROXY_MISSING);
  buildIfNeeded();
  const own = await SoakResources.create();
  process.once('SIGINT', () => void own.cleanup().then(() => process.exit(130)));
  try {
    await soak(own, options);
  } finally {
    await own.cleanup();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(
    `soak: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
