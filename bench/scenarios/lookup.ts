import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Side } from '../lib/ab';
import { alternate, medianOf, pairedRatio } from '../lib/ab';
import { measureCpu } from '../lib/cpu';
import { HttpClient } from '../lib/http';
import type { LoadResult } from '../lib/load';
import { runLoad, warmUntilStable } from '../lib/load';
import { log } from '../lib/log';
import { openMcpSession } from '../lib/mcp';
import { profileGateway, shouldProfile } from '../lib/profiling';
import { freePort } from '../lib/ports';
import { DB_POOL_SIZE, pgUrl } from '../lib/settings';
import { fmtMs, fmtRatio, fmtRps, fmtUs, round } from '../lib/stats';
import { bearer } from '../lib/tokens';
import type { BenchContext, Row, ScenarioResult } from '../lib/types';
import { emptyResult } from '../lib/types';

const TOOL = 'query_report_order_lookup';
const CALL_PATH = `/v1/tools/${TOOL}/call`;
const CALL_BODY = JSON.stringify({ arguments: { order_id: 4242 } });
const MCP_BODY = `{"jsonrpc":"2.0","id":[<id>],"method":"tools/call","params":{"name":"${TOOL}","arguments":{"order_id":4242}}}`;
const ANALYST = { tenant: 'acme', sub: 'bench-analyst', roles: ['analyst'] };
const LEVELS = [1, 10, 50];
const TARGET = { throughput: { 1: 0.8, 10: 0.85, 50: 0.8 } as Record<number, number>, cpu: 1.3 };
const TARGET_P50 = 1.3;
const TARGET_MCP = 0.75;

interface Service {
  url: string;
  pid: number;
}

/** The hand-written node:http + pg service (bench/lib/lookup-service.ts), its own process. */
export async function startService(ctx: BenchContext, database: string): Promise<Service> {
  const port = await freePort();
  ctx.cleanup.ensureOpen();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, '../lib/lookup-service.ts')],
    {
      cwd: path.resolve(__dirname, '../..'),
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: pgUrl(database),
        POOL_SIZE: String(DB_POOL_SIZE),
        PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  ctx.cleanup.add(`stop lookup service (pid ${child.pid})`, () => {
    child.kill('SIGKILL');
  });
  const deadline = Date.now() + 20_000;
  while (!output.includes(`listening ${port}`)) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`lookup service did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { url: `http://127.0.0.1:${port}`, pid: child.pid ?? -1 };
}

const cpuUs = (r: LoadResult) => (r.cpu ? r.cpu.userUs + r.cpu.systemUs : Number.NaN);

/**
 * A cheap point lookup (order_lookup: 4-table join by order id, 2 rows) through the gateway
 * (REST and MCP tools/call) vs a hand-written node:http + pg service running the same SQL,
 * each in its own process, CPU per call from /proc for both, at c = 1, 10, 50.
 */
export async function lookupScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const result = emptyResult();
  const { tuning } = ctx;
  const gateway = await ctx.demo.gateway();
  const database = await ctx.demo.database();
  const service = await startService(ctx, database);
  const auth = { ...(await bearer(ANALYST)), 'content-type': 'application/json' };

  // the same rows both ways, or the comparison means nothing
  const viaGateway = JSON.parse(
    (await gateway.client.ok(CALL_PATH, { method: 'POST', headers: auth, body: CALL_BODY })).body,
  ) as { result?: { rows: unknown[] } };
  const serviceClient = new HttpClient(service.url);
  const viaService = JSON.parse(
    (await serviceClient.ok('/', { method: 'POST', body: CALL_BODY })).body,
  ) as { rows: unknown[] };
  serviceClient.close();
  if (JSON.stringify(viaGateway.result?.rows) !== JSON.stringify(viaService.rows))
    throw new Error('gateway and hand-written service disagree');
  const mcp = await openMcpSession(gateway.client, auth);

  const gatewayLoad = { url: `${gateway.url}${CALL_PATH}`, method: 'POST' as const, headers: auth };
  await warmUntilStable(
    { ...gatewayLoad, body: CALL_BODY, connections: 10 },
    tuning.warmupMinSec,
    tuning.warmupMaxSec,
  );
  const sides = (connections: number): Side[] => [
    {
      name: 'gateway',
      run: () =>
        measureCpu(gateway.pid, () =>
          runLoad({ ...gatewayLoad, body: CALL_BODY, connections, durationSec: tuning.loadSec }),
        ),
    },
    {
      name: 'service',
      run: () =>
        measureCpu(service.pid, () =>
          runLoad({
            url: service.url,
            method: 'POST',
            body: CALL_BODY,
            connections,
            durationSec: tuning.loadSec,
          }),
        ),
    },
    ...(mcp
      ? [
          {
            name: 'mcp',
            run: () =>
              measureCpu(gateway.pid, () =>
                runLoad({
                  url: `${gateway.url}/mcp`,
                  method: 'POST',
                  headers: mcp.headers,
                  body: MCP_BODY,
                  uniqueIds: true,
                  connections,
                  durationSec: tuning.loadSec,
                }),
              ),
          },
        ]
      : []),
  ];

  const lines = [
    '| c | gateway calls/s | service calls/s | ratio | MCP calls/s | MCP ratio | gateway p50 | service p50 | p50 ratio | gateway CPU/call | service CPU/call | CPU ratio |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  const json: Record<string, unknown> = {};
  for (const c of LEVELS) {
    const r = await alternate(tuning.rounds, sides(c), (i, m) =>
      log(
        `lookup c=${c} round ${i + 1}/${tuning.rounds}: gateway ${fmtRps(m.get('gateway')?.rps ?? NaN)}, service ${fmtRps(m.get('service')?.rps ?? NaN)}, mcp ${fmtRps(m.get('mcp')?.rps ?? NaN)}`,
      ),
    );
    const g = r.get('gateway') ?? [];
    const s = r.get('service') ?? [];
    const m = r.get('mcp') ?? [];
    const failures = [...g, ...s, ...m].reduce((n, x) => n + x.failures, 0);
    if (failures > 0) throw new Error(`lookup c=${c}: ${failures} failed requests`);
    const rps = pairedRatio(g, s, (x) => x.rps);
    const p50 = pairedRatio(g, s, (x) => x.p50);
    const cpu = pairedRatio(g, s, cpuUs);
    const mcpRps = m.length ? pairedRatio(m, s, (x) => x.rps) : Number.NaN;
    lines.push(
      `| ${c} | ${fmtRps(medianOf(g, (x) => x.rps))} | ${fmtRps(medianOf(s, (x) => x.rps))} | ${fmtRatio(rps)} | ${m.length ? fmtRps(medianOf(m, (x) => x.rps)) : 'n/a'} | ${fmtRatio(mcpRps)} | ${fmtMs(medianOf(g, (x) => x.p50))} | ${fmtMs(medianOf(s, (x) => x.p50))} | ${fmtRatio(p50)} | ${fmtUs(medianOf(g, cpuUs))} | ${fmtUs(medianOf(s, cpuUs))} | ${fmtRatio(cpu)} |`,
    );
    const row = (metric: string, ratio: number, target: number, higher: boolean): Row => ({
      scenario: 'lookup',
      metric: `${metric}, c=${c}`,
      gateway: '',
      baseline: '',
      ratio: fmtRatio(ratio),
      target: `${higher ? '>=' : '<='} ${target}x`,
      verdict: (higher ? ratio >= target : ratio <= target) ? 'met' : 'missed',
    });
    result.rows.push(
      row('throughput vs hand-written service', rps, TARGET.throughput[c], true),
      row('CPU per call vs hand-written service', cpu, TARGET.cpu, false),
      row('p50 vs hand-written service', p50, TARGET_P50, false),
      ...(m.length ? [row('MCP tools/call throughput vs service', mcpRps, TARGET_MCP, true)] : []),
    );
    json[`c${c}`] = {
      throughput_ratio: round(rps),
      p50_ratio: round(p50),
      cpu_ratio: round(cpu),
      mcp_throughput_ratio: round(mcpRps),
    };
  }
  result.details.push(
    `POST ${CALL_PATH} {"order_id":4242} (acme/analyst; 4-table join, 2 rows) vs bench/lib/lookup-service.ts (node:http + pg.Pool, the same paged SQL, no auth or transaction), each its own process, pool ${DB_POOL_SIZE} on both; MCP = the same tool through an initialised MCP session's tools/call. autocannon with c connections; ${tuning.rounds} rounds of ${tuning.loadSec} s per level rotating the order; CPU per call from /proc/<pid>/stat of each server. Ratios: median of per-round gateway/service.`,
    '',
    ...lines,
    '',
  );
  result.json = json;

  const missed = result.rows.some((r) => r.verdict === 'missed');
  if (shouldProfile(ctx, missed)) {
    const profileOptions = { database, redisPrefix: ctx.demo.redisPrefix() };
    const c = 10;
    const warm = async (g: { client: HttpClient }, url: string): Promise<void> => {
      // one call first: a fresh gateway on a loaded machine may miss a whole first window
      await g.client.ok(CALL_PATH, { method: 'POST', headers: auth, body: CALL_BODY });
      await warmUntilStable(
        { ...gatewayLoad, url, body: CALL_BODY, connections: c },
        tuning.warmupMinSec,
        tuning.warmupMaxSec,
      );
    };
    const profiled = (title: string, take: () => Promise<string>) =>
      take().catch((err: unknown) => `#### Profile: ${title}\n\nnot taken: ${String(err)}\n`);
    result.profiles.push(
      await profiled(`POST ${CALL_PATH}`, () =>
        profileGateway(
          ctx,
          { ...profileOptions, name: 'lookup-profile' },
          `POST ${CALL_PATH}`,
          `The lookup call, ${c} connections for ${tuning.loadSec + 3} s, sampled after an unsampled warm-up until throughput was stable.`,
          (g) => warm(g, `${g.url}${CALL_PATH}`),
          async (g) => {
            await runLoad({
              ...gatewayLoad,
              url: `${g.url}${CALL_PATH}`,
              body: CALL_BODY,
              connections: c,
              durationSec: tuning.loadSec + 3,
            });
          },
        ),
      ),
    );
    result.profiles.push(
      await profiled(`MCP tools/call ${TOOL}`, () =>
        profileGateway(
          ctx,
          { ...profileOptions, name: 'lookup-mcp-profile' },
          `MCP tools/call ${TOOL}`,
          `The same tool through an MCP session's tools/call, ${c} connections for ${tuning.loadSec + 3} s, after the REST warm-up.`,
          (g) => warm(g, `${g.url}${CALL_PATH}`),
          async (g) => {
            const session = await openMcpSession(g.client, auth);
            if (!session) throw new Error('no MCP session on the profiled gateway');
            await runLoad({
              url: `${g.url}/mcp`,
              method: 'POST',
              headers: session.headers,
              body: MCP_BODY,
              uniqueIds: true,
              connections: c,
              durationSec: tuning.loadSec + 3,
            });
          },
        ),
      ),
    );
  }
  return result;
}
