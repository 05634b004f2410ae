import { readFileSync } from 'node:fs';
import { alternate } from '../lib/ab';
import { measureCpu } from '../lib/cpu';
import { GatewayProcess } from '../lib/gateway';
import { OPS_LIMITS, OPS_OFF, OPS_ON } from '../lib/ops-settings';
import { runLoad, warmUntilStable } from '../lib/load';
import { log } from '../lib/log';
import { withPerfRecord } from '../lib/perf-record';
import { fmtRps, fmtUs, median } from '../lib/stats';
import { bearer } from '../lib/tokens';
import type { BenchContext, ScenarioResult } from '../lib/types';
import { emptyResult } from '../lib/types';

const LIST_PATH = '/v1/tools?format=openai';
/** OPS_SPLIT_CALL=1: the ops scenario's tool call instead of the warm list */
const CALL = process.env.OPS_SPLIT_CALL === '1';
const REQUEST = CALL
  ? {
      path: '/v1/tools/query_report_sales_by_region/call',
      method: 'POST' as const,
      body: JSON.stringify({
        arguments: { region: 'east', order_date: { start: '2026-01-01', end: '2026-03-31' } },
      }),
    }
  : { path: LIST_PATH, method: 'GET' as const, body: undefined };
const ANALYST = { tenant: 'acme', sub: 'bench-ops', roles: ['analyst'] };
const LIMITS = OPS_LIMITS;

/**
 * Where the ops scenario's on-only cost goes on the warm list: the same gateway build with
 * each part of "on" alone (access log, metrics), and "on" with its stdout discarded
 * instead of piped to this process, all measured alternately; CPU per request from /proc.
 */
interface Variant {
  name: string;
  env: Record<string, string>;
  stdout?: 'ignore';
  main?: string;
}

const ON = OPS_ON;
const OFF = OPS_OFF;

/**
 * With OPS_SPLIT_BASE=<another build's dist/apps/gateway/src/main.js> (e.g. a worktree of
 * the commit before a change): on and off of this build and of that one, alternately.
 */
function variants(): Variant[] {
  const file = process.env.OPS_SPLIT_VARIANTS;
  if (file) return readVariants(file);
  const base = process.env.OPS_SPLIT_BASE;
  if (!base) return VARIANTS;
  return [
    { name: 'off', env: OFF },
    { name: 'on', env: ON },
    { name: 'base off', env: OFF, main: base },
    { name: 'base on', env: ON, main: base },
  ];
}

/**
 * OPS_SPLIT_VARIANTS=<file.json>: the variants to compare, `[{ "name", "env"?, "on"?, "main"? }]`
 * (`on`: start from the ON settings instead of OFF; `main`: e.g. a wrapper that patches a
 * library before requiring the build, to switch one part off for an experiment).
 */
function readVariants(file: string): Variant[] {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as (Variant & { on?: boolean })[];
  return raw.map((v) => ({ ...v, env: { ...(v.on ? ON : OFF), ...v.env } }));
}

const VARIANTS: Variant[] = [
  { name: 'off', env: OFF },
  { name: 'on', env: ON },
  { name: 'log only', env: { LOG_LEVEL: 'info', METRICS_ENABLED: '0' } },
  { name: 'metrics only', env: { LOG_LEVEL: 'silent', ...LIMITS } },
  { name: 'on, stdout discarded', env: ON, stdout: 'ignore' },
];

export async function opsSplitScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const result = emptyResult();
  const { tuning } = ctx;
  const database = await ctx.demo.database();
  const redisPrefix = ctx.demo.redisPrefix();
  const token = await bearer(ANALYST);
  const auth: Record<string, string> = CALL
    ? { ...token, 'content-type': 'application/json' }
    : token;
  const spec = (url: string) => ({
    url: `${url}${REQUEST.path}`,
    method: REQUEST.method,
    headers: auth,
    body: REQUEST.body,
  });
  const gateways: GatewayProcess[] = [];
  const chosen = variants();
  for (const [i, v] of chosen.entries())
    gateways.push(
      await GatewayProcess.start(ctx.cleanup, {
        name: `ops-split-${i}`,
        database,
        redisPrefix,
        env: v.env,
        stdout: v.stdout,
        main: v.main,
      }),
    );
  for (const g of gateways) {
    await g.client.ok(REQUEST.path, { method: REQUEST.method, headers: auth, body: REQUEST.body });
    await warmUntilStable(
      { ...spec(g.url), connections: tuning.connections },
      tuning.warmupMinSec,
      tuning.warmupMaxSec,
    );
  }
  const perfDir = process.env.OPS_SPLIT_PERF;
  const runs = chosen.map(() => 0);
  const sides = chosen.map((v, i) => ({
    name: v.name,
    run: () =>
      measureCpu(gateways[i].pid, () =>
        withPerfRecord(perfDir, `v${i}-r${++runs[i]}`, gateways[i].pid, () =>
          runLoad({
            ...spec(gateways[i].url),
            connections: tuning.connections,
            durationSec: tuning.loadSec,
          }),
        ),
      ),
  }));
  const rounds = await alternate(tuning.rounds, sides, (round, r) =>
    log(
      `ops-split round ${round + 1}: ${[...r.entries()].map(([n, x]) => `${n} ${fmtRps(x.rps)} ${fmtUs((x.cpu?.userUs ?? 0) + (x.cpu?.systemUs ?? 0))}`).join('; ')}`,
    ),
  );
  for (const g of gateways) await g.stop();
  const lines = [
    '| variant | req/s per round | CPU/req per round (user + sys) | median CPU/req | median user | median sys |',
    '| --- | --- | --- | ---: | ---: | ---: |',
  ];
  const json: Record<string, unknown> = {};
  for (const v of chosen) {
    const rs = rounds.get(v.name) ?? [];
    const user = median(rs.map((r) => r.cpu?.userUs ?? Number.NaN));
    const sys = median(rs.map((r) => r.cpu?.systemUs ?? Number.NaN));
    const total = median(rs.map((r) => (r.cpu?.userUs ?? 0) + (r.cpu?.systemUs ?? 0)));
    lines.push(
      `| ${v.name} | ${rs.map((r) => fmtRps(r.rps)).join(', ')} | ${rs.map((r) => `${fmtUs(r.cpu?.userUs ?? 0)} + ${fmtUs(r.cpu?.systemUs ?? 0)}`).join(', ')} | ${fmtUs(total)} | ${fmtUs(user)} | ${fmtUs(sys)} |`,
    );
    json[v.name] = { cpu_us: total, user_us: user, sys_us: sys, rps: median(rs.map((r) => r.rps)) };
  }
  result.details.push(
    `${REQUEST.method} ${REQUEST.path}${CALL ? '' : ' (warm, fast lane)'}, ${tuning.connections} connections, ${tuning.rounds} rounds of ${tuning.loadSec} s, variants in rotating order; CPU per request of each gateway from /proc.`,
    '',
    ...lines,
    '',
  );
  result.json = json;
  return result;
}
