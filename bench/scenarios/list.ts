import { medianOf } from '../lib/ab';
import { startStaticServer } from '../lib/baseline-server';
import type { StaticRoute } from '../lib/baseline-server';
import { compareHttp } from '../lib/compare';
import type { HttpComparison } from '../lib/compare';
import { runLoad, warmUntilStable } from '../lib/load';
import type { LoadResult, LoadSpec } from '../lib/load';
import { log } from '../lib/log';
import { openMcpSession } from '../lib/mcp';
import type { McpSession } from '../lib/mcp';
import { profileGateway, shouldProfile } from '../lib/profiling';
import { fmtMs, fmtRatio, fmtRps, fmtUs, round } from '../lib/stats';
import { bearer } from '../lib/tokens';
import type { BenchContext, Row, ScenarioResult } from '../lib/types';
import { emptyResult } from '../lib/types';

const LIST_PATH = '/v1/tools?format=openai';
const ANALYST = { tenant: 'acme', sub: 'bench-analyst', roles: ['analyst'] };
const MIN_THROUGHPUT = 0.6;
const MAX_P99 = 2;

const cpuUs = (r: LoadResult) => (r.cpu ? r.cpu.userUs + r.cpu.systemUs : Number.NaN);

function rows(metricPrefix: string, c: HttpComparison): Row[] {
  const rps = c.throughputRatio;
  const p99 = c.p99Ratio;
  return [
    {
      scenario: 'list',
      metric: `${metricPrefix} throughput`,
      gateway: fmtRps(medianOf(c.gateway, (r) => r.rps)),
      baseline: fmtRps(medianOf(c.baseline, (r) => r.rps)),
      ratio: fmtRatio(rps),
      target: `>= ${MIN_THROUGHPUT}x`,
      verdict: rps >= MIN_THROUGHPUT ? 'met' : 'missed',
    },
    {
      scenario: 'list',
      metric: `${metricPrefix} p99 latency`,
      gateway: fmtMs(medianOf(c.gateway, (r) => r.p99)),
      baseline: fmtMs(medianOf(c.baseline, (r) => r.p99)),
      ratio: fmtRatio(p99),
      target: `<= ${MAX_P99}x`,
      verdict: p99 <= MAX_P99 ? 'met' : 'missed',
    },
    {
      scenario: 'list',
      metric: `${metricPrefix} server CPU per request`,
      gateway: fmtUs(medianOf(c.gateway, cpuUs)),
      baseline: fmtUs(medianOf(c.baseline, cpuUs)),
      ratio: fmtRatio(c.cpuRatio),
      target: '(info)',
      verdict: 'info',
    },
  ];
}

function json(c: HttpComparison): Record<string, number> {
  return {
    throughput_ratio: round(c.throughputRatio),
    p99_ratio: round(c.p99Ratio),
    p50_ratio: round(c.p50Ratio),
    gateway_rps: round(
      medianOf(c.gateway, (r) => r.rps),
      0,
    ),
    baseline_rps: round(
      medianOf(c.baseline, (r) => r.rps),
      0,
    ),
    gateway_p99_ms: round(medianOf(c.gateway, (r) => r.p99)),
    baseline_p99_ms: round(medianOf(c.baseline, (r) => r.p99)),
    cpu_per_request_ratio: round(c.cpuRatio),
  };
}

const missed = (c: HttpComparison) => c.throughputRatio < MIN_THROUGHPUT || c.p99Ratio > MAX_P99;

/**
 * Warm tool list (REST, then MCP tools/list) against a bare node:http server that sends
 * the identical bytes. Both are separate Node processes; autocannon runs in this one.
 */
export async function listScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const result = emptyResult();
  const { tuning } = ctx;
  const gateway = await ctx.demo.gateway();
  const database = await ctx.demo.database();
  const prefix = ctx.demo.redisPrefix();
  const auth = await bearer(ANALYST);

  // The baseline serves the gateway's own responses, byte for byte.
  const first = await gateway.client.ok(LIST_PATH, { headers: auth });
  const tools = (JSON.parse(first.body) as { tools: unknown[] }).tools.length;
  const body = Buffer.from(first.body, 'utf8');
  const check = await gateway.client.ok(LIST_PATH, { headers: auth });
  if (check.body !== first.body) throw new Error('the warm list body changed between requests');
  const routes: StaticRoute[] = [
    {
      prefix: '/v1/tools',
      body,
      headers: {
        'content-type': String(first.headers['content-type']),
        'x-toolset-key': String(first.headers['x-toolset-key']),
      },
    },
  ];
  // The same list through MCP (streamable HTTP, JSON responses), when the endpoint exists.
  const mcp = await openMcpSession(gateway.client, auth);
  if (mcp) {
    const headers: Record<string, string> = {
      'content-type': String(mcp.listResponse.headers['content-type']),
    };
    const session = mcp.listResponse.headers['mcp-session-id'];
    if (typeof session === 'string') headers['mcp-session-id'] = session;
    routes.push({ prefix: '/mcp', body: Buffer.from(mcp.listResponse.body, 'utf8'), headers });
  }
  const baseline = await startStaticServer(ctx.cleanup, routes);
  const pids = { gateway: gateway.pid, baseline: baseline.pid };

  const rest = await compareHttp(
    'list REST',
    tuning,
    { url: `${gateway.url}${LIST_PATH}`, headers: auth },
    { url: `${baseline.url}${LIST_PATH}`, headers: auth },
    pids,
  );
  result.rows.push(...rows('GET /v1/tools', rest));
  result.details.push(
    `GET ${LIST_PATH} as acme/analyst (${tools} tools, ${body.length} bytes, real JWT verified per request) vs a bare node:http process sending the same bytes and headers (content-type, x-toolset-key). ${tuning.connections} connections, ${tuning.loadSec} s per run, ${tuning.rounds} rounds alternating the order, after warming the gateway until its throughput is stable. Ratios are medians of the per-round ratios. CPU/req = user + system CPU of the server process (from /proc/<pid>/stat, 10 ms ticks) per response.`,
    '',
    ...rest.table,
    '',
  );
  const json_: Record<string, unknown> = { ...json(rest), tools, body_bytes: body.length };

  let mcpComparison: HttpComparison | undefined;
  if (!mcp) {
    log('list MCP: POST /mcp answered 404; n/a');
    const na = 'n/a (MCP endpoint not available)';
    result.rows.push({
      scenario: 'list',
      metric: 'MCP tools/list',
      gateway: na,
      baseline: '',
      ratio: '',
      target: '',
      verdict: 'n/a',
    });
    result.details.push(`MCP tools/list: ${na} (POST /mcp answered 404).`, '');
    json_.mcp = null;
  } else {
    const request = {
      method: 'POST' as const,
      headers: mcp.headers,
      body: mcp.listRequest,
      uniqueIds: true,
    };
    mcpComparison = await compareHttp(
      'list MCP',
      tuning,
      { url: `${gateway.url}/mcp`, ...request },
      { url: `${baseline.url}/mcp`, ...request },
      pids,
    );
    result.rows.push(...rows('MCP tools/list', mcpComparison));
    result.details.push(
      `MCP: one session (initialize, notifications/initialized), then POST /mcp tools/list (${mcp.tools} tools) with its mcp-session-id and a unique JSON-RPC id per request, from all ${tuning.connections} connections; the baseline answers the same requests with the same ${mcp.listResponse.body.length} response bytes (one fixed id).`,
      '',
      ...mcpComparison.table,
      '',
    );
    json_.mcp = json(mcpComparison);
  }
  await baseline.stop();
  result.json = json_;

  const warmLoad = async (
    url: string,
    request: Omit<LoadSpec, 'url' | 'connections' | 'durationSec'>,
  ): Promise<void> => {
    await warmUntilStable(
      { url, ...request, connections: tuning.connections },
      tuning.warmupMinSec,
      tuning.warmupMaxSec,
    );
  };
  const profiled = `${tuning.connections} connections for ${tuning.loadSec + 3} s, sampled after an unsampled warm-up until throughput was stable`;
  if (shouldProfile(ctx, missed(rest))) {
    result.profiles.push(
      await profileGateway(
        ctx,
        { name: 'list-profile', database, redisPrefix: prefix },
        'warm GET /v1/tools',
        `Warm GET ${LIST_PATH} (acme/analyst), ${profiled}.`,
        (g) => warmLoad(`${g.url}${LIST_PATH}`, { headers: auth }),
        async (g) => {
          await runLoad({
            url: `${g.url}${LIST_PATH}`,
            headers: auth,
            connections: tuning.connections,
            durationSec: tuning.loadSec + 3,
          });
        },
      ),
    );
  }
  if (mcpComparison && shouldProfile(ctx, missed(mcpComparison)) && mcp) {
    let session: McpSession | undefined;
    result.profiles.push(
      await profileGateway(
        ctx,
        { name: 'mcp-profile', database, redisPrefix: prefix },
        'MCP tools/list',
        `POST /mcp tools/list (acme/analyst), ${profiled}.`,
        async (g) => {
          session = await openMcpSession(g.client, auth);
          if (session)
            await warmLoad(`${g.url}/mcp`, {
              method: 'POST',
              headers: session.headers,
              body: session.listRequest,
              uniqueIds: true,
            });
        },
        async (g) => {
          if (!session) return;
          await runLoad({
            url: `${g.url}/mcp`,
            method: 'POST',
            headers: session.headers,
            body: session.listRequest,
            uniqueIds: true,
            connections: tuning.connections,
            durationSec: tuning.loadSec + 3,
          });
        },
      ),
    );
  }
  return result;
}
