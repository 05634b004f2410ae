import { medianOf } from '../lib/ab';
import { compareHttp } from '../lib/compare';
import type { HttpComparison } from '../lib/compare';
import { GatewayProcess } from '../lib/gateway';
import { OPS_OFF, OPS_ON } from '../lib/ops-settings';
import { runLoad, warmUntilStable } from '../lib/load';
import type { LoadResult, LoadSpec } from '../lib/load';
import { profileGateway, shouldProfile } from '../lib/profiling';
import { fmtRatio, fmtRps, round } from '../lib/stats';
import { bearer } from '../lib/tokens';
import type { BenchContext, Row, ScenarioResult } from '../lib/types';
import { emptyResult } from '../lib/types';

const LIST_PATH = '/v1/tools?format=openai';
const CALL_PATH = '/v1/tools/query_report_sales_by_region/call';
const CALL_BODY = JSON.stringify({
  arguments: { region: 'east', order_date: { start: '2026-01-01', end: '2026-03-31' } },
});
const ANALYST = { tenant: 'acme', sub: 'bench-ops', roles: ['analyst'] };
/** on / off: at most 10% worse */
const MIN_RATIO = 0.9;

const ON = OPS_ON;
const OFF = OPS_OFF;

function row(metric: string, c: HttpComparison): Row {
  return {
    scenario: 'ops',
    metric: `${metric} throughput, logging + metrics + limits on / off`,
    gateway: fmtRps(medianOf(c.gateway, (r) => r.rps)),
    baseline: fmtRps(medianOf(c.baseline, (r) => r.rps)),
    ratio: fmtRatio(c.throughputRatio),
    target: `>= ${MIN_RATIO}x`,
    verdict: c.throughputRatio >= MIN_RATIO ? 'met' : 'missed',
  };
}

/**
 * The cost of operability: the same gateway build twice on the same database and Redis, one
 * with the access log (pino, info), metrics (prom-client) and every limit on
 * (rate-limiter-flexible over Redis, a concurrency cap), one with logging silent, metrics
 * off (METRICS_ENABLED=0) and no limits. The trace id is made in both (it is part of every
 * answer).
 */
export async function opsScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const result = emptyResult();
  const { tuning } = ctx;
  const database = await ctx.demo.database();
  const redisPrefix = ctx.demo.redisPrefix();
  const on = await GatewayProcess.start(ctx.cleanup, {
    name: 'ops-on',
    database,
    redisPrefix,
    env: ON,
  });
  const off = await GatewayProcess.start(ctx.cleanup, {
    name: 'ops-off',
    database,
    redisPrefix,
    env: OFF,
  });
  const auth = await bearer(ANALYST);
  const callHeaders = { ...auth, 'content-type': 'application/json' };
  for (const g of [on, off]) {
    await g.client.ok(LIST_PATH, { headers: auth });
    await g.client.ok(CALL_PATH, { method: 'POST', headers: callHeaders, body: CALL_BODY });
  }
  const pids = { gateway: on.pid, baseline: off.pid };
  const list = await compareHttp(
    'ops list',
    tuning,
    { url: `${on.url}${LIST_PATH}`, headers: auth },
    { url: `${off.url}${LIST_PATH}`, headers: auth },
    pids,
  );
  const callSpec = (url: string) => ({
    url: `${url}${CALL_PATH}`,
    method: 'POST' as const,
    headers: callHeaders,
    body: CALL_BODY,
  });
  const call = await compareHttp('ops call', tuning, callSpec(on.url), callSpec(off.url), pids);
  await on.stop();
  await off.stop();
  result.rows.push(row('GET /v1/tools', list), row('POST call', call));
  result.details.push(
    `Two gateway processes on the same database and Redis, measured alternately: **on** = ${Object.entries(
      ON,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(
        ', ',
      )}, metrics on (one access log line per request to a drained stdout pipe, prom-client histograms and counters, user/tenant rate limits counted in Redis, the tenant concurrency cap); **off** = ${Object.entries(
      OFF,
    )
      .map(([k, v]) => `${k}=${v}`)
      .join(
        ', ',
      )}, no limits. Trace ids are made in both. In the tables "gateway" is **on** and "baseline" is **off**.`,
    '',
    'GET /v1/tools (warm, fast lane):',
    '',
    ...list.table,
    '',
    `POST ${CALL_PATH}:`,
    '',
    ...call.table,
    '',
  );
  const missed = Math.min(list.throughputRatio, call.throughputRatio) < MIN_RATIO;
  if (shouldProfile(ctx, missed)) {
    const options = { database, redisPrefix, env: ON };
    const listSpec = { url: LIST_PATH, headers: auth };
    const callLoad = {
      url: CALL_PATH,
      method: 'POST' as const,
      headers: callHeaders,
      body: CALL_BODY,
    };
    // the off side of the list too: what "on" adds is the difference of the two profiles
    const offOptions = { database, redisPrefix, env: OFF };
    const profiles = [
      [{ ...options, name: 'ops-on-list-profile' }, 'ops on: GET /v1/tools', listSpec],
      [{ ...offOptions, name: 'ops-off-list-profile' }, 'ops off: GET /v1/tools', listSpec],
      [{ ...options, name: 'ops-on-call-profile' }, 'ops on: POST call', callLoad],
    ] as const;
    for (const [options, title, spec] of profiles)
      // a failed profile (a loaded machine) is reported, not a lost measurement
      result.profiles.push(
        await profileOn(ctx, options, title, spec).catch(
          (err: unknown) => `#### Profile: ${title}\n\nfailed: ${String(err)}\n`,
        ),
      );
  }
  result.json = {
    list_throughput_ratio: round(list.throughputRatio),
    list_p99_ratio: round(list.p99Ratio),
    call_throughput_ratio: round(call.throughputRatio),
    call_p99_ratio: round(call.p99Ratio),
  };
  return result;
}

/** A CPU profile of one gateway (on or off) under one warm load (where the extra cost goes). */
async function profileOn(
  ctx: BenchContext,
  options: { name: string; database: string; redisPrefix: string; env: Record<string, string> },
  title: string,
  spec: Omit<LoadSpec, 'connections' | 'durationSec'>,
): Promise<string> {
  const { tuning } = ctx;
  const at = (g: GatewayProcess) => ({ ...spec, url: `${g.url}${spec.url}` });
  let sampled: LoadResult | undefined;
  const markdown = await profileGateway(
    ctx,
    options,
    title,
    `${spec.method ?? 'GET'} ${spec.url} with ${options.env === ON ? 'logging, metrics and limits on' : 'logging, metrics and limits off'}, ${tuning.connections} connections for ${tuning.loadSec + 3} s after an unsampled warm-up.`,
    async (g) => {
      // the first answer fills the caches the fast lanes read (token, catalog, list body)
      await g.client.ok(spec.url, { method: spec.method, headers: spec.headers, body: spec.body });
      await warmUntilStable(
        { ...at(g), connections: tuning.connections },
        tuning.warmupMinSec,
        tuning.warmupMaxSec,
      );
    },
    async (g) => {
      sampled = await runLoad({
        ...at(g),
        connections: tuning.connections,
        durationSec: tuning.loadSec + 3,
      });
    },
  );
  if (!sampled) return markdown;
  return `${markdown}\nSampled load: ${sampled.responses} responses (${fmtRps(sampled.rps)}); a row's ms / responses is its time per request.\n`;
}
