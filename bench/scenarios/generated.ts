import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runInSandbox } from '../baseline/fresh-process-sandbox';
import { GatewayProcess } from '../lib/gateway';
import { runLoad, runLoop } from '../lib/load';
import type { LoadResult } from '../lib/load';
import { log } from '../lib/log';
import { redisPrefix } from '../lib/redis';
import { ROOT, RUN_TMP } from '../lib/settings';
import { fmtMs, fmtRatio, fmtRps, median, round } from '../lib/stats';
import { bearer } from '../lib/tokens';
import type { BenchContext, Row, ScenarioResult } from '../lib/types';
import { emptyResult } from '../lib/types';

const EXAMPLE = path.join(ROOT, 'libs/meta-tool/examples/markdown_outline.mjs');
const MARKDOWN = '# Q1 review\nSome words here.\n- east up\n- west flat\n## Risks\n- churn\n';
/** an author who may also call the sales report, so one identity calls both tools */
const CALLER = { tenant: 'acme', sub: 'bench-ada', roles: ['tool_author', 'analyst'] };
const REVIEWER = { tenant: 'acme', sub: 'bench-rex', roles: ['tool_reviewer'] };
const REPORT_PATH = '/v1/tools/query_report_sales_by_region/call';
const REPORT_BODY = JSON.stringify({
  arguments: { region: 'east', order_date: { start: '2026-01-01', end: '2026-03-31' } },
});
/** calls in flight for throughput: the default sandbox pool size, the same for all three */
const IN_FLIGHT = 4;
const TARGET = 10;

interface Variant {
  serial: LoadResult;
  loaded: LoadResult;
}
type Name = 'report' | 'generated' | 'fresh';

async function install(gateway: GatewayProcess, name: string): Promise<void> {
  const headers = { ...(await bearer(CALLER)), 'content-type': 'application/json' };
  const code = readFileSync(EXAMPLE, 'utf8').replace("name: 'markdown_outline'", `name: '${name}'`);
  const proposed = await gateway.client.ok('/v1/tools/meta_tool/call', {
    method: 'POST',
    headers,
    body: JSON.stringify({ arguments: { name, code, testArgs: { markdown: MARKDOWN } } }),
  });
  const id = (JSON.parse(proposed.body) as { result?: { proposal_id?: string } }).result
    ?.proposal_id;
  if (!id) throw new Error(`meta_tool refused the proposal: ${proposed.body}`);
  const approved = await gateway.client.ok(`/v1/admin/meta-tool/proposals/${id}/approve`, {
    method: 'POST',
    headers: { ...(await bearer(REVIEWER)), 'content-type': 'application/json' },
    body: '{}',
  });
  if (!approved.body.includes('"installed"')) throw new Error(`not installed: ${approved.body}`);
}

/**
 * A generated tool's call over HTTP against a report call over HTTP (same gateway, same
 * caller) and against the sandbox it replaced: a fresh `node` process per call
 * (bench/baseline/fresh-process-sandbox.ts, timed in the bench process, without HTTP, so it
 * flatters the old design). p50 at one call in flight; throughput at IN_FLIGHT in flight;
 * the three are measured in rotating order, every round, in the same run.
 */
export async function generatedScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const gateway = await GatewayProcess.start(ctx.cleanup, {
    name: 'generated',
    database: await ctx.demo.database(),
    redisPrefix: redisPrefix(ctx.cleanup, ctx.runId, 'generated'),
  });
  const name = `bench_gen_${ctx.runId.slice(-6)}`;
  await install(gateway, name);
  const headers = { ...(await bearer(CALLER)), 'content-type': 'application/json' };
  const dir = path.join(RUN_TMP, 'generated-tool');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'markdown_outline.mjs');
  writeFileSync(file, readFileSync(EXAMPLE, 'utf8'));
  const fresh = async () => {
    const out = await runInSandbox({
      file,
      name: 'markdown_outline',
      call: { args: { markdown: MARKDOWN } },
      timeoutMs: 10_000,
      memoryMb: 64,
      onQuery: async () => [],
    });
    if (!out.ok) throw new Error(out.message);
  };
  const http = (url: string, body: string) => (connections: number, durationSec: number) =>
    runLoad({ url, method: 'POST', headers, body, connections, durationSec });
  const runners: Record<Name, (c: number, s: number) => Promise<LoadResult>> = {
    report: http(`${gateway.url}${REPORT_PATH}`, REPORT_BODY),
    generated: http(
      `${gateway.url}/v1/tools/${name}/call`,
      JSON.stringify({ arguments: { markdown: MARKDOWN } }),
    ),
    fresh: (c, s) => runLoop(fresh, c, s),
  };
  const order: Name[] = ['report', 'generated', 'fresh'];
  const rounds: Array<Record<Name, Variant>> = [];
  try {
    for (const n of order) await runners[n](IN_FLIGHT, ctx.tuning.warmupMinSec / 3); // warm-up
    for (let r = 0; r < ctx.tuning.rounds; r++) {
      const round = {} as Record<Name, Variant>;
      for (const n of order.map((_, i) => order[(i + r) % order.length])) {
        const serial = await runners[n](1, ctx.tuning.serialSec);
        const loaded = await runners[n](IN_FLIGHT, ctx.tuning.loadSec);
        round[n] = { serial, loaded };
      }
      rounds.push(round);
      log(
        `generated round ${r + 1}: p50 report ${fmtMs(round.report.serial.p50)}, generated ${fmtMs(round.generated.serial.p50)}, fresh process ${fmtMs(round.fresh.serial.p50)}`,
      );
    }
  } finally {
    await gateway.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return summarize(rounds);
}

function summarize(rounds: Array<Record<Name, Variant>>): ScenarioResult {
  const m = (f: (r: Record<Name, Variant>) => number) => median(rounds.map(f));
  const p50 = (n: Name) => m((r) => r[n].serial.p50);
  const rps = (n: Name) => m((r) => r[n].loaded.rps);
  const speedup = m((r) => r.fresh.serial.p50 / r.generated.serial.p50);
  const result = emptyResult();
  const row = (metric: string, gateway: string, baseline: string, ratio: number): Row => ({
    scenario: 'generated',
    metric,
    gateway,
    baseline,
    ratio: fmtRatio(ratio),
    target: '(info)',
    verdict: 'info',
  });
  result.rows.push(
    row(
      'generated tool call p50, c=1, vs report call',
      fmtMs(p50('generated')),
      `${fmtMs(p50('report'))} (report call)`,
      m((r) => r.generated.serial.p50 / r.report.serial.p50),
    ),
    {
      ...row(
        'fresh process per call p50 / generated tool call p50',
        fmtMs(p50('generated')),
        `${fmtMs(p50('fresh'))} (fresh process, no HTTP)`,
        speedup,
      ),
      target: `>= ${TARGET}x`,
      verdict: speedup >= TARGET ? 'met' : 'missed',
    },
    row(
      `generated tool calls/s at ${IN_FLIGHT} in flight vs report calls/s`,
      fmtRps(rps('generated')),
      `${fmtRps(rps('report'))} (report call)`,
      m((r) => r.generated.loaded.rps / r.report.loaded.rps),
    ),
    row(
      `generated tool calls/s at ${IN_FLIGHT} in flight vs fresh process`,
      fmtRps(rps('generated')),
      `${fmtRps(rps('fresh'))} (fresh process, no HTTP)`,
      m((r) => r.generated.loaded.rps / r.fresh.loaded.rps),
    ),
  );
  result.details.push(
    `A generated tool (libs/meta-tool/examples/markdown_outline.mjs, installed through meta_tool and approved) called over HTTP, against \`POST ${REPORT_PATH}\` by the same caller on the same gateway, and against the sandbox it replaced: a fresh \`node\` process per call (bench/baseline/fresh-process-sandbox.ts) timed in the bench process without HTTP, which flatters it. p50 at one call in flight; throughput at ${IN_FLIGHT} in flight (the default sandbox pool size). Each round runs the three in rotating order; medians over ${rounds.length} rounds (ratios: median of per-round ratios).`,
    '',
    '| round | report p50 | generated p50 | fresh p50 | report calls/s | generated calls/s | fresh calls/s |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rounds.map(
      (r, i) =>
        `| ${i + 1} | ${fmtMs(r.report.serial.p50)} | ${fmtMs(r.generated.serial.p50)} | ${fmtMs(r.fresh.serial.p50)} | ${fmtRps(r.report.loaded.rps)} | ${fmtRps(r.generated.loaded.rps)} | ${fmtRps(r.fresh.loaded.rps)} |`,
    ),
    '',
  );
  result.json = {
    report_p50_ms: round(p50('report')),
    generated_p50_ms: round(p50('generated')),
    fresh_process_p50_ms: round(p50('fresh')),
    report_rps: round(rps('report')),
    generated_rps: round(rps('generated')),
    fresh_process_rps: round(rps('fresh')),
    fresh_over_generated_p50: round(speedup),
  };
  return result;
}
