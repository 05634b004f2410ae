/**
 * COMMIT of a new report (plain SQL, own connection) -> `notifications/tools/list_changed` on
 * an MCP 2026-07-28 `subscriptions/listen` stream held by the other of two gateway processes,
 * and on a 2025 session's GET stream on the same process (the path it is compared with).
 * `npx tsx bench/mcp-listen-propagation.ts [changes]` (needs a built dist/). Prints p50/p99.
 */
import { startStandaloneRun } from './lib/standalone';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createDatabase } from './lib/database';
import { GatewayProcess } from './lib/gateway';
import { watchMachineLoad } from './lib/machine-load';
import { redisPrefix } from './lib/redis';
import { pgUrl, RUN_ID } from './lib/settings';
import { median, percentile } from './lib/stats';
import { bearer } from './lib/tokens';

const INSERT = `INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
  VALUES ('acme', $1, 'Listen probe', 'bench probe', 'SELECT count(*) AS n FROM orders', 'sales')`;
const TIMEOUT_MS = 5000;

/** A 2026-07-28 listen stream on `url`. */
async function listen(url: string, auth: Record<string, string>) {
  const params = {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    },
    notifications: { toolsListChanged: true },
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      ...auth,
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'bench', method: 'subscriptions/listen', params }),
  });
  return watch(res);
}

/** A 2025 session's notification stream (initialize, initialized, GET) on `url`. */
async function sessionStream(url: string, auth: Record<string, string>) {
  const headers = {
    ...auth,
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
  };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    }),
  });
  await init.text();
  const session = {
    ...headers,
    'mcp-session-id': init.headers.get('mcp-session-id') ?? '',
    'mcp-protocol-version': '2025-06-18',
  };
  const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
  await (
    await fetch(url, { method: 'POST', headers: session, body: JSON.stringify(initialized) })
  ).text();
  // the session's baseline list, as a client reads it before waiting for changes
  const listed = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
  await (
    await fetch(url, { method: 'POST', headers: session, body: JSON.stringify(listed) })
  ).text();
  return watch(await fetch(url, { method: 'GET', headers: session }));
}

/** The list_changed frames of a stream; `next(t)` resolves with the first arrival after t. */
function watch(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const arrivals: number[] = [];
  let wake: (() => void) | undefined;
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (frame.includes('notifications/tools/list_changed')) {
          arrivals.push(performance.now());
          wake?.();
        }
      }
    }
  })();
  return {
    cancel: () => reader.cancel().catch(() => undefined),
    next: (after: number) =>
      new Promise<number>((resolve) => {
        const check = () => {
          const at = arrivals.find((t) => t >= after);
          if (at !== undefined) return resolve(at);
          wake = check;
        };
        setTimeout(() => resolve(Number.NaN), TIMEOUT_MS).unref();
        check();
      }),
  };
}

async function main(): Promise<void> {
  const changes = Number(process.argv[2] ?? 50);
  const { cleanup, template } = await startStandaloneRun();
  try {
    const database = `gw_bench_${RUN_ID}_listen`;
    await createDatabase(cleanup, database, template);
    const prefix = redisPrefix(cleanup, RUN_ID, 'listen');
    const [a, b] = await Promise.all(
      ['listen-a', 'listen-b'].map((name) =>
        GatewayProcess.start(cleanup, {
          name,
          database,
          redisPrefix: prefix,
          env: { TOOLS_INLINE_MAX: String(changes + 100) },
        }),
      ),
    );
    const auth = await bearer({ tenant: 'acme', sub: 'bench-listen', roles: ['analyst'] });
    await a.client.ok('/v1/tools?format=mcp', { headers: auth });
    const stream = await listen(`${b.url}/mcp`, auth);
    const session = await sessionStream(`${b.url}/mcp`, auth);
    const writer = new pg.Client({ connectionString: pgUrl(database) });
    writer.on('error', () => undefined);
    await writer.connect();
    const machine = watchMachineLoad();
    const latencies: number[] = [];
    const sessionLatencies: number[] = [];
    let timeouts = 0;
    try {
      for (let i = 0; i < changes; i++) {
        const t0 = performance.now();
        await writer.query(INSERT, [`bench_listen_${i}`]);
        const [at, sessionAt] = await Promise.all([stream.next(t0), session.next(t0)]);
        if (Number.isNaN(at) || Number.isNaN(sessionAt)) timeouts++;
        if (!Number.isNaN(at)) latencies.push(at - t0);
        if (!Number.isNaN(sessionAt)) sessionLatencies.push(sessionAt - t0);
        // a short, varying gap, so changes do not line up with anything periodic
        await new Promise((r) => setTimeout(r, 60 + (i % 7) * 5));
      }
    } finally {
      await writer.end().catch(() => undefined);
      await stream.cancel();
      await session.cancel();
    }
    console.log(
      JSON.stringify({
        changes,
        p50Ms: +median(latencies).toFixed(1),
        p99Ms: +percentile(latencies, 99).toFixed(1),
        maxMs: +Math.max(...latencies).toFixed(1),
        session2025: {
          p50Ms: +median(sessionLatencies).toFixed(1),
          p99Ms: +percentile(sessionLatencies, 99).toFixed(1),
          maxMs: +Math.max(...sessionLatencies).toFixed(1),
        },
        timeouts,
        load: machine(),
      }),
    );
  } finally {
    await cleanup.runAll();
  }
}

void main();
