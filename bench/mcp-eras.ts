/**
 * MCP 2026-07-28 (stateless, McpStateless) against the 2025 session lanes (the list and call
 * fast lanes) on one gateway process: tools/list and a report tools/call, c=10, rounds in
 * rotating order (bench/lib/ab.ts). Prints one JSON line per lane and the paired ratios.
 * `npx tsx bench/mcp-eras.ts [rounds] [seconds]` (needs a built dist/, as every bench).
 */
import { startStandaloneRun } from './lib/standalone';
import { alternate, medianOf, pairedRatio } from './lib/ab';
import { DemoFixture } from './lib/demo';
import { GatewayProcess } from './lib/gateway';
import { runLoad } from './lib/load';
import type { LoadResult } from './lib/load';
import { watchMachineLoad } from './lib/machine-load';
import { openMcpSession } from './lib/mcp';
import { RUN_ID } from './lib/settings';
import { bearer } from './lib/tokens';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const CALL = { name: 'query_report_sales_by_region', arguments: { region: 'east' } };

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 3);
  const seconds = Number(process.argv[3] ?? 5);
  const { cleanup, template } = await startStandaloneRun();
  try {
    const demo = new DemoFixture(cleanup, RUN_ID, template);
    const auth = await bearer({ tenant: 'acme', sub: 'bench-eras', roles: ['analyst'] });
    const g = await GatewayProcess.start(cleanup, {
      name: 'mcp-eras',
      database: await demo.database(),
      redisPrefix: demo.redisPrefix(),
      env: {},
    });
    const session = await openMcpSession(g.client, auth);
    if (!session) throw new Error('no /mcp');
    const url = `${g.url}/mcp`;
    const modern = (method: string, params: Record<string, unknown>) => ({
      url,
      method: 'POST' as const,
      headers: {
        ...auth,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META } }),
    });
    const legacy = (method: string, params?: Record<string, unknown>) => ({
      url,
      method: 'POST' as const,
      headers: session.headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) }),
    });
    const load = (spec: ReturnType<typeof legacy>) => () =>
      runLoad({ ...spec, connections: 10, durationSec: seconds });
    const machine = watchMachineLoad();
    const results = await alternate(rounds, [
      { name: 'list-2025-session', run: load(legacy('tools/list')) },
      { name: 'list-2026-stateless', run: load(modern('tools/list', {})) },
      { name: 'call-2025-session', run: load(legacy('tools/call', CALL)) },
      { name: 'call-2026-stateless', run: load(modern('tools/call', CALL)) },
    ]);
    const rps = (r: LoadResult) => r.rps;
    const p99 = (r: LoadResult) => r.p99;
    for (const [name, runs] of results)
      console.log(
        JSON.stringify({
          name,
          rps: Math.round(medianOf(runs, rps)),
          p99Ms: +medianOf(runs, p99).toFixed(2),
          failures: runs.reduce((n, r) => n + r.failures, 0),
        }),
      );
    const ratio = (a: string, b: string) =>
      +pairedRatio(results.get(a)!, results.get(b)!, rps).toFixed(3);
    console.log(
      JSON.stringify({
        listStatelessVsSession: ratio('list-2026-stateless', 'list-2025-session'),
        callStatelessVsSession: ratio('call-2026-stateless', 'call-2025-session'),
        load: machine(),
        rounds,
        seconds,
      }),
    );
  } finally {
    await cleanup.runAll();
  }
}

void main();
