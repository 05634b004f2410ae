import { readFileSync } from 'node:fs';
import path from 'node:path';
import { GatewayProcess } from '../lib/gateway';
import type { HttpClient } from '../lib/http';
import { log } from '../lib/log';
import { readMetrics } from '../lib/metrics';
import { redisPrefix } from '../lib/redis';
import { ROOT } from '../lib/settings';
import { fmtMs, fmtRatio, median, round } from '../lib/stats';
import { bearer } from '../lib/tokens';
import type { BenchContext, Row, ScenarioResult } from '../lib/types';
import { emptyResult } from '../lib/types';

export const META_NA = 'n/a (meta_tool not implemented yet)';
const EXAMPLE = path.join(ROOT, 'libs/meta-tool/examples/markdown_outline.mjs');
const MARKDOWN = '# Q1 review\nSome words here.\n- east up\n- west flat\n## Risks\n- churn\n';
const AUTHOR = { tenant: 'acme', sub: 'bench-ada', roles: ['tool_author'] };
const REVIEWER = { tenant: 'acme', sub: 'bench-rex', roles: ['tool_reviewer'] };

interface Round {
  proposeMs: number;
  approveMs: number;
  visibleMs: number;
  staticGateMs: number;
  runtimeGateMs: number;
  callMs: number;
}

function na(reason: string): ScenarioResult {
  const result = emptyResult();
  result.rows.push({
    scenario: 'meta',
    metric: 'meta_tool time per gate',
    gateway: reason,
    baseline: '',
    ratio: '',
    target: '',
    verdict: 'n/a',
  });
  result.details.push(`${reason}.`);
  return result;
}

async function post(
  client: HttpClient,
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ ms: number; json: Record<string, unknown> }> {
  const res = await client.request(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`POST ${url}: HTTP ${res.status}: ${res.body}`);
  return { ms: res.ms, json: JSON.parse(res.body) as Record<string, unknown> };
}

/** Milliseconds spent in one gate so far, whatever the outcome (the histogram's `_sum`). */
const gateMs = (m: Map<string, number>, gate: string) => {
  let seconds = 0;
  for (const [series, value] of m)
    if (
      series.startsWith('gateway_meta_tool_gate_duration_seconds_sum{') &&
      series.includes(`gate="${gate}"`)
    )
      seconds += value;
  return seconds * 1000;
};

/**
 * meta_tool's pipeline, time per gate: static gate (on propose), human gate (a reviewer's
 * approval: the bench approves at once through the admin API), runtime gate (sandboxed
 * smoke run, on approve) and install, then the time until the tool is listed. Gate times
 * come from the gateway's own gateway_meta_tool_gate_duration_seconds; the baseline is one call
 * of the installed tool, in the same run.
 */
export async function metaScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const gateway = await GatewayProcess.start(ctx.cleanup, {
    name: 'meta',
    database: await ctx.demo.database(),
    redisPrefix: redisPrefix(ctx.cleanup, ctx.runId, 'meta'),
  });
  const author = await bearer(AUTHOR);
  const reviewer = await bearer(REVIEWER);
  const listed = await gateway.client.ok('/v1/tools', { headers: author });
  if (!listed.body.includes('"meta_tool"')) {
    await gateway.stop();
    return na(META_NA);
  }
  const example = readFileSync(EXAMPLE, 'utf8');
  const CALLS = ctx.quick ? 5 : 20;
  const rounds: Round[] = [];
  for (let i = 0; i < ctx.tuning.cacheRounds; i++) {
    const name = `bench_outline_${ctx.runId.slice(-6)}_${i}`;
    const code = example.replace("name: 'markdown_outline'", `name: '${name}'`);
    const before = await readMetrics(gateway.client);
    const proposed = await post(gateway.client, '/v1/tools/meta_tool/call', author, {
      arguments: { name, code, testArgs: { markdown: MARKDOWN } },
    });
    const id = (proposed.json.result as { proposal_id?: string } | undefined)?.proposal_id;
    if (proposed.json.is_error || !id)
      throw new Error(`meta_tool refused the proposal: ${JSON.stringify(proposed.json)}`);
    const approved = await post(
      gateway.client,
      `/v1/admin/meta-tool/proposals/${id}/approve`,
      reviewer,
      {},
    );
    if (approved.json.status !== 'installed')
      throw new Error(`the approval did not install: ${JSON.stringify(approved.json)}`);
    const approvedAt = Date.now();
    let visibleMs = Number.NaN;
    for (let t = 0; t < 500; t++) {
      const res = await gateway.client.ok('/v1/tools', { headers: author });
      if (res.body.includes(`"${name}"`)) {
        visibleMs = Date.now() - approvedAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    const after = await readMetrics(gateway.client);
    const calls: number[] = [];
    for (let c = 0; c < CALLS; c++) {
      const called = await post(gateway.client, `/v1/tools/${name}/call`, author, {
        arguments: { markdown: MARKDOWN },
      });
      if (called.json.is_error)
        throw new Error(`the installed tool failed: ${JSON.stringify(called.json)}`);
      calls.push(called.ms);
    }
    rounds.push({
      proposeMs: proposed.ms,
      approveMs: approved.ms,
      visibleMs,
      staticGateMs: gateMs(after, 'static') - gateMs(before, 'static'),
      runtimeGateMs: gateMs(after, 'runtime') - gateMs(before, 'runtime'),
      callMs: median(calls),
    });
    log(`meta round ${i + 1}: propose ${fmtMs(proposed.ms)}, approve ${fmtMs(approved.ms)}`);
  }
  await gateway.stop();

  const m = (f: (r: Round) => number) => median(rounds.map(f));
  const call = m((r) => r.callMs);
  const result = emptyResult();
  const row = (metric: string, ms: number, note = ''): Row => ({
    scenario: 'meta',
    metric,
    gateway: `${fmtMs(ms)}${note}`,
    baseline: `${fmtMs(call)} (tool call)`,
    ratio: fmtRatio(ms / call),
    target: '(info)',
    verdict: 'info',
  });
  result.rows.push(
    row(
      'static gate (gateway-timed)',
      m((r) => r.staticGateMs),
    ),
    {
      scenario: 'meta',
      metric: 'human gate',
      gateway: 'n/a (a person; approved at once through the API here)',
      baseline: '',
      ratio: '',
      target: '',
      verdict: 'n/a',
    },
    row(
      'runtime gate: sandboxed smoke run (gateway-timed)',
      m((r) => r.runtimeGateMs),
    ),
    row(
      'propose round trip (static gate + store)',
      m((r) => r.proposeMs),
    ),
    row(
      'approve round trip (runtime gate + install)',
      m((r) => r.approveMs),
    ),
    row(
      'approve -> listed',
      m((r) => r.visibleMs),
    ),
  );
  result.details.push(
    `${rounds.length} proposals of libs/meta-tool/examples/markdown_outline.mjs (renamed per round) by an acme tool_author, each approved at once by a tool_reviewer through POST /v1/admin/meta-tool/proposals/<id>/approve, then lists polled 10 ms apart until the tool is listed, then ${CALLS} calls of the installed tool (the baseline: median call latency). Gate times are deltas of the gateway's own gateway_meta_tool_gate_duration_seconds_sum (all outcomes); round trips are measured here. Medians over rounds.`,
    '',
    '| round | propose | static gate | approve | runtime gate | approve -> listed | installed tool call |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rounds.map(
      (r, i) =>
        `| ${i + 1} | ${fmtMs(r.proposeMs)} | ${fmtMs(r.staticGateMs)} | ${fmtMs(r.approveMs)} | ${fmtMs(r.runtimeGateMs)} | ${fmtMs(r.visibleMs)} | ${fmtMs(r.callMs)} |`,
    ),
    '',
  );
  result.json = {
    static_gate_ms: round(m((r) => r.staticGateMs)),
    runtime_gate_ms: round(m((r) => r.runtimeGateMs)),
    propose_ms: round(m((r) => r.proposeMs)),
    approve_ms: round(m((r) => r.approveMs)),
    approve_to_listed_ms: round(m((r) => r.visibleMs)),
    tool_call_ms: round(call),
  };
  return result;
}
