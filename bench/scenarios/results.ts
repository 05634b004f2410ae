import type { Side } from '../lib/ab';
import { alternate, medianOf, pairedRatio } from '../lib/ab';
import { createDatabase } from '../lib/database';
import { GatewayProcess } from '../lib/gateway';
import { HttpClient } from '../lib/http';
import { runLoad, warmUntilStable } from '../lib/load';
import { log } from '../lib/log';
import { redisPrefix } from '../lib/redis';
import { fmtMs, fmtRatio, fmtRps, round } from '../lib/stats';
import { bearer } from '../lib/tokens';
import type { BenchContext, Row, ScenarioResult } from '../lib/types';
import { emptyResult } from '../lib/types';
import { startService } from './lookup';

const ANALYST = { tenant: 'acme', sub: 'bench-analyst', roles: ['analyst'] };
const ADMIN = { tenant: 'acme', sub: 'bench-admin', roles: ['admin'] };
const BODY = JSON.stringify({ arguments: { order_id: 4242 } });
const CACHED = 'order_lookup_cached';
const TARGET_CACHED = 1.5;
const CONNECTIONS = 10;

/**
 * The result cache (issue #41): the demo's point lookup with `cache_ttl_seconds` answered warm
 * from the cache, the same lookup uncached, and the hand-written node:http + pg service
 * (uncached: it has no cache) running the same SQL, alternating rounds in one run, c = 10. On a
 * database and gateway of its own: the report it adds must not change the shared demo catalog.
 */
export async function resultsScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const result = emptyResult();
  const { tuning } = ctx;
  const database = `gw_bench_${ctx.runId}_results`;
  await createDatabase(ctx.cleanup, database, ctx.template);
  const gateway = await GatewayProcess.start(ctx.cleanup, {
    name: 'results',
    database,
    redisPrefix: redisPrefix(ctx.cleanup, ctx.runId, 'results'),
  });
  const service = await startService(ctx, database);
  const auth = { ...(await bearer(ANALYST)), 'content-type': 'application/json' };
  const admin = { ...(await bearer(ADMIN)), 'content-type': 'application/json' };

  // the demo's order_lookup again, as a second report that keeps its rows for an hour
  const doc = JSON.parse(
    (await gateway.client.ok('/v1/admin/reports/order_lookup', { headers: admin })).body,
  ) as { report: Record<string, unknown> };
  const report: Record<string, unknown> = { ...doc.report, cache_ttl_seconds: 3600 };
  delete report.id;
  const put = await fetch(`${gateway.url}/v1/admin/reports/${CACHED}`, {
    method: 'PUT',
    headers: admin,
    body: JSON.stringify(report),
  });
  if (put.status !== 201) throw new Error(`PUT ${CACHED}: ${put.status} ${await put.text()}`);
  const path = (tool: string) => `/v1/tools/query_report_${tool}/call`;
  const rowsOf = (body: string) =>
    (JSON.parse(body) as { result?: { rows: unknown[] } }).result?.rows;
  const viaCache = rowsOf(
    (await gateway.client.ok(path(CACHED), { method: 'POST', headers: auth, body: BODY })).body,
  );
  const again = JSON.parse(
    (await gateway.client.ok(path(CACHED), { method: 'POST', headers: auth, body: BODY })).body,
  ) as { cached_at?: string };
  if (!again.cached_at) throw new Error('the second call of the cached report was not a cache hit');
  const serviceClient = new HttpClient(service.url);
  const viaService = (
    JSON.parse((await serviceClient.ok('/', { method: 'POST', body: BODY })).body) as {
      rows: unknown[];
    }
  ).rows;
  serviceClient.close();
  if (JSON.stringify(viaCache) !== JSON.stringify(viaService))
    throw new Error('the cached gateway answer and the hand-written service disagree');

  const load =
    (url: string, headers: Record<string, string> = {}) =>
    () =>
      runLoad({
        url,
        method: 'POST',
        headers,
        body: BODY,
        connections: CONNECTIONS,
        durationSec: tuning.loadSec,
      });
  await warmUntilStable(
    {
      url: `${gateway.url}${path('order_lookup')}`,
      method: 'POST',
      headers: auth,
      body: BODY,
      connections: CONNECTIONS,
    },
    tuning.warmupMinSec,
    tuning.warmupMaxSec,
  );
  const sides: Side[] = [
    { name: 'cached', run: load(`${gateway.url}${path(CACHED)}`, auth) },
    { name: 'uncached', run: load(`${gateway.url}${path('order_lookup')}`, auth) },
    { name: 'service', run: load(service.url) },
  ];
  const r = await alternate(tuning.rounds, sides, (i, m) =>
    log(
      `results round ${i + 1}/${tuning.rounds}: cached ${fmtRps(m.get('cached')?.rps ?? NaN)}, uncached ${fmtRps(m.get('uncached')?.rps ?? NaN)}, service ${fmtRps(m.get('service')?.rps ?? NaN)}`,
    ),
  );
  const cached = r.get('cached') ?? [];
  const uncached = r.get('uncached') ?? [];
  const svc = r.get('service') ?? [];
  const failures = [...cached, ...uncached, ...svc].reduce((n, x) => n + x.failures, 0);
  if (failures > 0) throw new Error(`results: ${failures} failed requests`);
  const cachedRatio = pairedRatio(cached, svc, (x) => x.rps);
  const uncachedRatio = pairedRatio(uncached, svc, (x) => x.rps);
  const row = (metric: string, ratio: number, target: string, met: boolean): Row => ({
    scenario: 'results',
    metric,
    gateway: '',
    baseline: '',
    ratio: fmtRatio(ratio),
    target,
    verdict: met ? 'met' : 'missed',
  });
  result.rows.push(
    row(
      `cached point lookup vs hand-written service (uncached), c=${CONNECTIONS}`,
      cachedRatio,
      `>= ${TARGET_CACHED}x`,
      cachedRatio >= TARGET_CACHED,
    ),
    row(
      `uncached point lookup vs hand-written service, c=${CONNECTIONS} (same run)`,
      uncachedRatio,
      'reported (lookup: >= 0.85x)',
      uncachedRatio >= 0.85,
    ),
  );
  result.details.push(
    `POST /v1/tools/query_report_${CACHED}/call {"order_id":4242}: the demo's order_lookup saved again with cache_ttl_seconds 3600, warm (every call a cache hit after the first), vs the same lookup uncached (query_report_order_lookup) and bench/lib/lookup-service.ts (node:http + pg, no cache), on a database and gateway of this scenario's own; ${tuning.rounds} alternating rounds of ${tuning.loadSec} s at c=${CONNECTIONS}. Ratios: median of per-round ratios.`,
    '',
    '| side | calls/s | p50 |',
    '| --- | ---: | ---: |',
    ...[
      ['gateway, cached', cached],
      ['gateway, uncached', uncached],
      ['hand-written service', svc],
    ].map(
      ([name, runs]) =>
        `| ${name as string} | ${fmtRps(medianOf(runs as typeof svc, (x) => x.rps))} | ${fmtMs(medianOf(runs as typeof svc, (x) => x.p50))} |`,
    ),
    '',
  );
  result.json = { cached_ratio: round(cachedRatio), uncached_ratio: round(uncachedRatio) };
  return result;
}
