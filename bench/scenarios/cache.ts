import { withClient } from '../lib/database';
import { GatewayProcess } from '../lib/gateway';
import { log } from '../lib/log';
import { listAfterChange, timedList } from '../lib/list-probe';
import { redisPrefix } from '../lib/redis';
import { fmtMs, fmtRatio, median, percentile, round } from '../lib/stats';
import { bearer } from '../lib/tokens';
import type { BenchContext, ScenarioResult } from '../lib/types';
import { emptyResult } from '../lib/types';

const LIST_PATH = '/v1/tools?format=openai';
const ANALYST = { tenant: 'acme', sub: 'bench-analyst', roles: ['analyst'] };
/** A different tenant, to run the list code once in a new process without touching acme. */
const OTHER = { tenant: 'globex', sub: 'bench-warm', roles: ['analyst'] };
const L1_SAMPLES = 300;

const SETTLE_MS = 1000;

async function timed(
  gateway: GatewayProcess,
  headers: Record<string, string>,
  expect: Parameters<typeof timedList>[3],
): Promise<number> {
  return (await timedList(gateway, LIST_PATH, headers, expect)).ms;
}

/**
 * A list answered from L1 (memory), from L2 (Redis, in a new process), cold (new process,
 * new catalog version: Postgres) and rebuilt after a change in a warm process.
 */
export async function cacheScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const result = emptyResult();
  const rounds = ctx.tuning.cacheRounds;
  const database = await ctx.demo.database();
  const prefix = redisPrefix(ctx.cleanup, ctx.runId, 'cache');
  const auth = await bearer(ANALYST);
  const other = await bearer(OTHER);
  const bump = () =>
    withClient(database, (c) =>
      c.query(
        "UPDATE gateway.roles SET description = description WHERE tenant_id = 'acme' AND name = 'admin'",
      ),
    );
  const start = (name: string) =>
    GatewayProcess.start(ctx.cleanup, { name, database, redisPrefix: prefix });
  const warm = async (g: GatewayProcess) => {
    await g.client.ok(LIST_PATH, { headers: other });
    await g.client.ok(LIST_PATH, { headers: other });
  };

  // L1 on one long-lived instance (its first build also puts this version's catalog
  // snapshot and list body in L2).
  const first = await start('cache-l1');
  await warm(first);
  await timed(first, auth, { level: 'build', catalogFrom: 'postgres' });
  for (let i = 0; i < 100; i++) await first.client.ok(LIST_PATH, { headers: auth });
  await timed(first, auth, { level: 'l1' });
  const l1: number[] = [];
  for (let i = 0; i < L1_SAMPLES; i++)
    l1.push((await first.client.ok(LIST_PATH, { headers: auth })).ms);

  // L2 and cold: each sample is the first acme list of a new process.
  const l2: number[] = [];
  const l2CatalogFrom = new Set<string>();
  const cold: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const [x, y] = await Promise.all([start(`cache-l2-${r}`), start(`cache-cold-${r}`)]);
    await Promise.all([warm(x), warm(y)]);
    // Let start-up work that runs after the first requests (JIT, GC) finish: without this
    // pause the first request of a new process varies 3-10x.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    // L2 holds this version's list body (and, if the gateway stored it, the catalog
    // snapshot), written by an earlier process.
    const hit = await timedList(x, LIST_PATH, auth, { level: 'l2' });
    l2.push(hit.ms);
    l2CatalogFrom.add(hit.catalogFrom ?? '?');
    // A new version: nothing in L1 (new process) or L2 (keys carry the version).
    await bump();
    cold.push(await timed(y, auth, { level: 'build', catalogFrom: 'postgres' }));
    log(`cache round ${r + 1}/${rounds}: L2 ${fmtMs(l2[r])}, cold ${fmtMs(cold[r])}`);
    await Promise.all([x.stop(), y.stop()]);
  }

  // Rebuilds after a change, on the long-lived instance.
  const rebuild: number[] = [];
  const rebuiltFrom = new Set<string>();
  for (let r = 0; r < rounds; r++) {
    await bump();
    const probe = await listAfterChange(first, LIST_PATH, auth);
    rebuild.push(probe.ms);
    rebuiltFrom.add(probe.catalogFrom ?? '?');
  }
  await first.stop();

  const base = median(l1);
  const line = (name: string, xs: number[], how: string) =>
    `| ${name} | ${fmtMs(median(xs))} | ${fmtMs(percentile(xs, 99))} | ${fmtMs(Math.max(...xs))} | ${xs.length} | ${fmtRatio(median(xs) / base)} | ${how} |`;
  result.details.push(
    `Latency of one GET ${LIST_PATH} (acme/analyst, 7 tools) measured from this process on an open keep-alive connection, sequentially. Which level answered is checked per sample from the gateway's /metrics (gateway_list_requests_total by level, gateway_catalog_builds_total by source). L2 and cold samples are each the first acme request of a new gateway process (started fresh for every sample, warmed first with two globex lists so the code is loaded, then left idle for ${SETTLE_MS} ms); the L2 process finds this catalog version's snapshot and list body in Redis, the cold one runs after the catalog version was bumped (UPDATE of an acme role; keys carry the version, so L2 misses) and reads Postgres. A new process also re-checks every report template with the SQL guard (its rendered-report cache is per process), which L2 and cold both include. "Rebuild after a change" is a warm process after a catalog change (lists requested 10 ms apart until one is a rebuild, i.e. the NOTIFY has arrived; that one is the sample): it reads Postgres (a full read, or an incremental "refresh" of the reports whose version moved, whichever the gateway does; /metrics says which) and reuses its rendered reports. Ratios are against the L1 median.`,
    '',
    '| answered by | p50 | p99 | max | n | vs L1 | how |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
    line('L1 hit', l1, 'warm process, same version'),
    line(
      'L2 hit',
      l2,
      `new process, version unchanged (list body from Redis; catalog from: ${[...l2CatalogFrom].join(', ')})`,
    ),
    line('cold', cold, 'new process, new version'),
    line(
      'rebuild after change',
      rebuild,
      `warm process, new version (catalog source per /metrics: ${[...rebuiltFrom].join(', ')})`,
    ),
    '',
  );
  const row = (metric: string, xs: number[]) => ({
    scenario: 'cache',
    metric,
    gateway: fmtMs(median(xs)),
    baseline: `${fmtMs(base)} (L1)`,
    ratio: fmtRatio(median(xs) / base),
    target: '(info)',
    verdict: 'info' as const,
  });
  result.rows.push(
    { ...row('list latency p50, L1 hit', l1), baseline: '', ratio: '' },
    row('list latency p50, L2 hit (new instance)', l2),
    row('list latency p50, cold (new instance, new version)', cold),
    row('list latency p50, rebuild after change (warm instance)', rebuild),
  );
  result.json = {
    l1_p50_ms: round(base),
    l2_p50_ms: round(median(l2)),
    cold_p50_ms: round(median(cold)),
    rebuild_p50_ms: round(median(rebuild)),
    l2_ratio: round(median(l2) / base),
    cold_ratio: round(median(cold) / base),
  };
  return result;
}
