import pg from 'pg';
import type { Side } from '../lib/ab';
import { alternate, medianOf, pairedRatio } from '../lib/ab';
import { measureCpu } from '../lib/cpu';
import type { LoadResult } from '../lib/load';
import { runLoad, runLoop, warmUntilStable } from '../lib/load';
import { log } from '../lib/log';
import { profileGateway, shouldProfile } from '../lib/profiling';
import { DB_POOL_SIZE, pgUrl } from '../lib/settings';
import { fmtMs, fmtRatio, fmtRps, fmtUs, round } from '../lib/stats';
import { bearer } from '../lib/tokens';
import type { BenchContext, Row, ScenarioResult } from '../lib/types';
import { emptyResult } from '../lib/types';

const TOOL = 'query_report_sales_by_region';
const CALL_PATH = `/v1/tools/${TOOL}/call`;
const CALL_BODY = JSON.stringify({
  arguments: { region: 'east', order_date: { start: '2026-01-01', end: '2026-03-31' } },
});
const ANALYST = { tenant: 'acme', sub: 'bench-analyst', roles: ['analyst'] };
const MAX_P50 = 1.3;

/** The SQL the gateway renders for that call (paged: LIMIT page_size + 1 OFFSET 0). */
export const RENDERED_SQL = `SELECT * FROM (
SELECT o.region, count(*) AS order_count, sum(o.total_amount) AS total_amount
FROM orders o
WHERE ($1::text IS NULL OR o.region = $1::text)
  AND ($2::date IS NULL OR o.order_date >= $2::date)
  AND ($3::date IS NULL OR o.order_date <= $3::date)
GROUP BY o.region
ORDER BY o.region
) AS report_rows LIMIT $4 OFFSET $5`;
export const RENDERED_VALUES = ['east', '2026-01-01', '2026-03-31', 21, 0];

/** Like the gateway's pg session: extended protocol for every statement. */
function extended(text: string, values: unknown[] = []): pg.QueryConfig {
  const config: pg.QueryConfig & { queryMode: 'extended' } = {
    text,
    values,
    queryMode: 'extended',
  };
  return config;
}

/**
 * The gateway's ReportExecutor.runReadOnly wrapper, round trip for round trip (as of
 * commit 772fdef: the preamble as one simple-protocol script, the query extended, then
 * ROLLBACK). Keep in step with libs/registry/src/execution/report-executor.ts.
 */
export const PREAMBLE = [
  'BEGIN TRANSACTION READ ONLY',
  'SET LOCAL search_path TO "tenant_acme", pg_catalog, pg_temp',
  'SET LOCAL statement_timeout = 5000',
  'SET LOCAL ROLE "gw_reader_acme"',
].join('; ');

async function wrapped(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    try {
      await client.query(PREAMBLE);
      await client.query(extended(RENDERED_SQL, RENDERED_VALUES));
    } finally {
      await client.query(extended('ROLLBACK'));
    }
  } finally {
    client.release();
  }
}

interface Comparison {
  gateway: LoadResult[];
  bare: LoadResult[];
  wrapped: LoadResult[];
}

function table(c: Comparison): string[] {
  const line = (
    label: string,
    g: LoadResult,
    b: LoadResult,
    w: LoadResult,
    vsBare: number,
    vsWrapped: number,
  ) =>
    `| ${label} | ${fmtMs(g.p50)} | ${fmtMs(b.p50)} | ${fmtMs(w.p50)} | ${fmtRatio(vsBare)} | ${fmtRatio(vsWrapped)} | ${fmtMs(g.p99)} | ${fmtMs(b.p99)} | ${fmtMs(w.p99)} | ${fmtRps(g.rps)} | ${fmtRps(b.rps)} | ${fmtRps(w.rps)} | ${fmtUs(g.cpu ? g.cpu.userUs + g.cpu.systemUs : Number.NaN)} |`;
  const med = (rs: LoadResult[]): LoadResult => ({
    rps: medianOf(rs, (r) => r.rps),
    p50: medianOf(rs, (r) => r.p50),
    p99: medianOf(rs, (r) => r.p99),
    responses: 0,
    failures: 0,
    cpu: rs[0]?.cpu
      ? { userUs: medianOf(rs, (r) => (r.cpu ? r.cpu.userUs + r.cpu.systemUs : 0)), systemUs: 0 }
      : undefined,
  });
  return [
    '| round | gateway p50 | bare p50 | wrapped p50 | p50 ratio vs bare | p50 ratio vs wrapped | gateway p99 | bare p99 | wrapped p99 | gateway req/s | bare req/s | wrapped req/s | gateway CPU/call |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...c.gateway.map((g, i) =>
      line(
        String(i + 1),
        g,
        c.bare[i],
        c.wrapped[i],
        g.p50 / c.bare[i].p50,
        g.p50 / c.wrapped[i].p50,
      ),
    ),
    line(
      'median',
      med(c.gateway),
      med(c.bare),
      med(c.wrapped),
      pairedRatio(c.gateway, c.bare, (r) => r.p50),
      pairedRatio(c.gateway, c.wrapped, (r) => r.p50),
    ),
  ];
}

/**
 * A report call through the gateway vs the same rendered SQL through pg directly, same
 * pool size: "bare" is the query alone; "wrapped" adds the gateway's transaction wrapper
 * (BEGIN READ ONLY, set_config, SET LOCAL ROLE, ROLLBACK), so the two ratios separate the
 * wrapper's round trips from HTTP + auth + argument checking + JSON.
 */
export async function callScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const result = emptyResult();
  const { tuning } = ctx;
  const gateway = await ctx.demo.gateway();
  const database = await ctx.demo.database();
  const prefix = ctx.demo.redisPrefix();
  const auth = { ...(await bearer(ANALYST)), 'content-type': 'application/json' };
  const pool = new pg.Pool({
    connectionString: pgUrl(database),
    max: DB_POOL_SIZE,
    options: '-c search_path=tenant_acme',
  });
  pool.on('error', () => undefined);
  const closePool = ctx.cleanup.add('close direct pg pool', () => pool.end());

  // Same answer both ways, or the comparison means nothing.
  const viaGateway = await gateway.client.ok(CALL_PATH, {
    method: 'POST',
    headers: auth,
    body: CALL_BODY,
  });
  const outcome = JSON.parse(viaGateway.body) as {
    is_error: boolean;
    result?: { rows: unknown[] };
  };
  if (outcome.is_error || !outcome.result) throw new Error(`the call failed: ${viaGateway.body}`);
  const direct = await pool.query(extended(RENDERED_SQL, RENDERED_VALUES));
  const a = JSON.stringify(outcome.result.rows);
  const b = JSON.stringify(
    direct.rows.map((r: Record<string, unknown>) => ({
      region: r.region,
      order_count: Number(r.order_count),
      total_amount: Number(r.total_amount),
    })),
  );
  if (a !== b) throw new Error(`gateway and direct SQL disagree: ${a} vs ${b}`);

  const gatewayLoad = {
    url: `${gateway.url}${CALL_PATH}`,
    method: 'POST' as const,
    headers: auth,
    body: CALL_BODY,
  };
  let warmup = '';
  const sides = (connections: number, durationSec: number): Side[] => [
    {
      name: 'gateway',
      run: () =>
        measureCpu(gateway.pid, () => runLoad({ ...gatewayLoad, connections, durationSec })),
    },
    {
      name: 'bare',
      run: () =>
        runLoop(
          async () => void (await pool.query(extended(RENDERED_SQL, RENDERED_VALUES))),
          connections,
          durationSec,
        ),
    },
    { name: 'wrapped', run: () => runLoop(() => wrapped(pool), connections, durationSec) },
  ];

  const measure = async (connections: number, durationSec: number): Promise<Comparison> => {
    // One warm-up (at the higher concurrency, which runs first) covers both.
    if (connections === tuning.connections) {
      const curve = await warmUntilStable(
        { ...gatewayLoad, connections },
        tuning.warmupMinSec,
        tuning.warmupMaxSec,
      );
      for (const side of sides(connections, 0.5).slice(1)) await side.run();
      warmup = `gateway warm-up until stable (0.5 s slices): ${curve.map((r) => Math.round(r)).join(', ')} calls/s; direct sides 0.5 s each`;
      log(`call: ${warmup}`);
    }
    const r = await alternate(tuning.rounds, sides(connections, durationSec), (i, m) =>
      log(
        `call c=${connections} round ${i + 1}/${tuning.rounds}: p50 gateway ${fmtMs(m.get('gateway')?.p50 ?? NaN)}, bare ${fmtMs(m.get('bare')?.p50 ?? NaN)}, wrapped ${fmtMs(m.get('wrapped')?.p50 ?? NaN)}`,
      ),
    );
    const c = {
      gateway: r.get('gateway') ?? [],
      bare: r.get('bare') ?? [],
      wrapped: r.get('wrapped') ?? [],
    };
    const failures = [...c.gateway, ...c.bare, ...c.wrapped].reduce((n, x) => n + x.failures, 0);
    if (failures > 0) throw new Error(`call c=${connections}: ${failures} failed requests`);
    return c;
  };

  const loaded = await measure(tuning.connections, tuning.loadSec);
  const serial = await measure(1, tuning.serialSec);
  await closePool();

  const ratios = (c: Comparison) => ({
    bare: pairedRatio(c.gateway, c.bare, (r) => r.p50),
    wrapped: pairedRatio(c.gateway, c.wrapped, (r) => r.p50),
    rpsBare: pairedRatio(c.gateway, c.bare, (r) => r.rps),
  });
  const rl = ratios(loaded);
  const rs = ratios(serial);
  const p50 = (rsl: LoadResult[]) => fmtMs(medianOf(rsl, (r) => r.p50));
  const row = (
    metric: string,
    g: LoadResult[],
    base: LoadResult[],
    ratio: number,
    verdict: boolean | null,
  ): Row => ({
    scenario: 'call',
    metric,
    gateway: p50(g),
    baseline: p50(base),
    ratio: fmtRatio(ratio),
    target: verdict === null ? '(info)' : `<= ${MAX_P50}x`,
    verdict: verdict === null ? 'info' : verdict ? 'met' : 'missed',
  });
  result.rows.push(
    row(
      `p50, c=${tuning.connections}, vs bare query`,
      loaded.gateway,
      loaded.bare,
      rl.bare,
      rl.bare <= MAX_P50,
    ),
    row(
      `p50, c=${tuning.connections}, vs same transaction wrapper`,
      loaded.gateway,
      loaded.wrapped,
      rl.wrapped,
      null,
    ),
    row('p50, c=1, vs bare query', serial.gateway, serial.bare, rs.bare, rs.bare <= MAX_P50),
    row('p50, c=1, vs same transaction wrapper', serial.gateway, serial.wrapped, rs.wrapped, null),
    {
      scenario: 'call',
      metric: `throughput, c=${tuning.connections}, vs bare query`,
      gateway: fmtRps(medianOf(loaded.gateway, (r) => r.rps)),
      baseline: fmtRps(medianOf(loaded.bare, (r) => r.rps)),
      ratio: fmtRatio(rl.rpsBare),
      target: '(info)',
      verdict: 'info',
    },
  );
  result.details.push(
    `POST ${CALL_PATH} (acme/analyst, region east, Q1 2026; 1 row from a seq scan of 50,000 orders) vs the same rendered SQL and values through \`pg\` in the bench process, pool max ${DB_POOL_SIZE} on both sides (DB_POOL_SIZE=${DB_POOL_SIZE}). Baselines: **bare** = the query alone (search_path set at connect); **wrapped** = the gateway's own round trips (ReportExecutor.runReadOnly): one simple-protocol script \`${PREAMBLE}\`, the query (extended protocol), ROLLBACK. Gateway load: autocannon with c connections; direct load: c concurrent loops. A warm-up (the gateway until its throughput is stable), then ${tuning.rounds} rounds rotating the order of the three, ${tuning.loadSec} s each at c=${tuning.connections}, then the same at c=1 with ${tuning.serialSec} s runs. Results were checked equal before measuring. Ratios: median of per-round gateway/baseline.`,
    '',
    `c=${tuning.connections}:`,
    '',
    ...table(loaded),
    '',
    'c=1:',
    '',
    ...table(serial),
    '',
    `${warmup}.`,
    '',
  );
  result.json = {
    p50_ratio: round(rl.bare),
    p50_ratio_vs_wrapped: round(rl.wrapped),
    c1_p50_ratio: round(rs.bare),
    c1_p50_ratio_vs_wrapped: round(rs.wrapped),
    throughput_ratio: round(rl.rpsBare),
    connections: tuning.connections,
    gateway_p50_ms: round(medianOf(loaded.gateway, (r) => r.p50)),
    bare_p50_ms: round(medianOf(loaded.bare, (r) => r.p50)),
    wrapped_p50_ms: round(medianOf(loaded.wrapped, (r) => r.p50)),
  };

  if (shouldProfile(ctx, rl.bare > MAX_P50 || rs.bare > MAX_P50)) {
    result.profiles.push(
      await profileGateway(
        ctx,
        { name: 'call-profile', database, redisPrefix: prefix },
        'POST /v1/tools/query_report_sales_by_region/call',
        `The same call, ${tuning.connections} connections for ${tuning.loadSec + 3} s, sampled after an unsampled warm-up until throughput was stable.`,
        async (g) => {
          await warmUntilStable(
            { ...gatewayLoad, url: `${g.url}${CALL_PATH}`, connections: tuning.connections },
            tuning.warmupMinSec,
            tuning.warmupMaxSec,
          );
        },
        async (g) => {
          await runLoad({
            url: `${g.url}${CALL_PATH}`,
            method: 'POST',
            headers: auth,
            body: CALL_BODY,
            connections: tuning.connections,
            durationSec: tuning.loadSec + 3,
          });
        },
      ),
    );
  }
  return result;
}
