/**
 * Tenant data sources (issue #30): a report call on a tenant's own Postgres server against the
 * same report in the gateway's own database (same SQL, same rows: the demo data is generated
 * into both), and another tenant's p50 while a source is down. In-process gateway on a scratch
 * database (Postgres on 5432, no Redis), the source on the warehouse server (TEST_WAREHOUSE_URL, or the cluster made on
 * demand by test/support/warehouse.ts). Both servers run on this machine, so the source's extra
 * cost is its own pool and session, not a network.
 *
 *   npx tsx bench/datasource-latency.ts [calls per measurement, default 400]
 */
import { randomBytes } from 'node:crypto';
import { execSync } from 'node:child_process';
import { demoDataStatements } from '../db/demo/demo-data';
import { withScratchDatabase, runMain } from './lib/scratch-database';
import { percentile } from './lib/stats';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mintToken } from './lib/tokens';
import { JWT_SECRET } from './lib/settings';
/** Who a request is made as (the bench's tokens carry tenant, sub and roles). */
interface TokenClaims {
  tenant: string;
  user: string;
  roles: string[];
}
import { eventually } from '../test/support/eventually';
import { TcpProxy } from '../test/support/tcp-proxy';
import { createWarehouseDatabase, warehouseServer } from '../test/support/warehouse';

const CALLS = Number(process.argv[2] ?? 400);
const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const gary: TokenClaims = { tenant: 'globex', user: 'gary', roles: ['analyst'] };
const TABLES = ['orders', 'customers', 'order_items', 'products'];

const LOOKUP_SQL = `SELECT o.id AS order_id, o.order_date, c.name AS customer_name, o.status, p.name AS product, i.quantity, i.unit_price
FROM orders o
JOIN customers c ON c.id = o.customer_id
JOIN order_items i ON i.order_id = o.id
JOIN products p ON p.id = i.product_id
WHERE o.id = :order_id
ORDER BY i.line_no`;
const REGION_SQL = `SELECT o.region, count(*) AS order_count, sum(o.total_amount) AS total_amount
FROM orders o
WHERE (:region IS NULL OR o.region = :region)
GROUP BY o.region
ORDER BY o.region`;

const SECRET = JWT_SECRET;
const MAIN = path.resolve(__dirname, '../dist/apps/gateway/src/main.js');

interface Gateway {
  request(
    path: string,
    init?: { method?: string; as?: TokenClaims; json?: unknown },
  ): Promise<Response>;
  close(): Promise<void>;
}

/** The built gateway (`npx nest build gateway`) as a child process on the scratch database. */
async function spawnGateway(databaseUrl: string): Promise<Gateway> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      AUTH_JWT_SECRET: SECRET,
      DATASOURCE_KEY: randomBytes(32).toString('base64'),
      // the bench's warehouse listens on loopback, refused by default (issue #37)
      DATASOURCE_ALLOWED_NETWORKS: '127.0.0.0/8',
      LOG_LEVEL: 'warn',
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-ds-bench-')),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  await eventually(
    async () => {
      if (!(await fetch(`${base}/readyz`)).ok) throw new Error('not ready');
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  return {
    async request(p, init = {}) {
      const headers: Record<string, string> = {};
      if (init.as)
        headers.authorization = `Bearer ${await mintToken({ tenant: init.as.tenant, sub: init.as.user, roles: init.as.roles })}`;
      if (init.json !== undefined) headers['content-type'] = 'application/json';
      return fetch(`${base}${p}`, {
        method: init.method ?? 'GET',
        headers,
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
      });
    },
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const uptime = () =>
  execSync('uptime')
    .toString()
    .trim()
    .replace(/^.*load/, 'load');

async function timedCalls(
  gw: Gateway,
  who: TokenClaims,
  tool: string,
  args: (i: number) => unknown,
  n: number,
): Promise<{ p50: number; p95: number; errors: number }> {
  const ms: number[] = [];
  let errors = 0;
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const res = await gw.request(`/v1/tools/${tool}/call`, {
      method: 'POST',
      as: who,
      json: { arguments: args(i) },
    });
    const body = (await res.json()) as { is_error?: boolean };
    ms.push(performance.now() - started);
    if (body.is_error !== false) errors++;
  }
  return { p50: percentile(ms, 50), p95: percentile(ms, 95), errors };
}

async function putReport(gw: Gateway, id: string, body: unknown): Promise<void> {
  const res = await gw.request(`/v1/admin/reports/${id}`, { method: 'PUT', as: root, json: body });
  if (res.status !== 201) throw new Error(`report ${id}: ${res.status} ${await res.text()}`);
}

async function putSource(gw: Gateway, name: string, url: string): Promise<void> {
  const res = await gw.request(`/v1/admin/datasources/${name}`, {
    method: 'PUT',
    as: root,
    json: { url, schema: 'sales', tables: TABLES, pool_max: 5 },
  });
  if (res.status !== 201) throw new Error(`source ${name}: ${res.status} ${await res.text()}`);
}

const fmt = (r: { p50: number; p95: number; errors: number }) =>
  `p50 ${r.p50.toFixed(2)} ms, p95 ${r.p95.toFixed(2)} ms, errors ${r.errors}`;

async function main(): Promise<void> {
  const wh = await createWarehouseDatabase('SELECT 1');
  // the same rows as tenant_acme in the gateway's database (same generator, same salt)
  for (const statement of demoDataStatements('sales', 50_000, 1)) await wh.run(statement);
  const reader = await wh.login((r) => [
    `GRANT USAGE ON SCHEMA sales TO ${r}`,
    `GRANT SELECT ON ${TABLES.map((t) => `sales.${t}`).join(', ')} TO ${r}`,
  ]);
  const server = await warehouseServer();
  const proxy = new TcpProxy(server.host, server.port);
  await proxy.start();
  try {
    await withScratchDatabase('gw_ds_bench', 1, async (url) => {
      const gw = await spawnGateway(url);
      try {
        await putSource(gw, 'wh', reader.url);
        const viaProxy = new URL(reader.url);
        viaProxy.hostname = '127.0.0.1';
        viaProxy.port = String(proxy.port);
        await putSource(gw, 'whp', viaProxy.toString());
        const lookup = {
          name: 'Order lookup (warehouse)',
          description: 'The lines of one order, from the warehouse.',
          sql_template: LOOKUP_SQL,
          category: 'sales',
          filters: [{ name: 'order_id', type: 'integer', required: true }],
        };
        const region = {
          name: 'Sales by region (warehouse)',
          description: 'Orders and totals per region, from the warehouse.',
          sql_template: REGION_SQL,
          category: 'sales',
          filters: [{ name: 'region', type: 'string' }],
        };
        await putReport(gw, 'lookup_here', lookup);
        await putReport(gw, 'lookup_wh', { ...lookup, datasource: 'wh' });
        await putReport(gw, 'region_here', region);
        await putReport(gw, 'region_wh', { ...region, datasource: 'wh' });
        await putReport(gw, 'region_whp', { ...region, datasource: 'whp' });
        const orderId = (i: number) => ({ order_id: 1 + ((i * 7919) % 50_000) });
        const east = () => ({ region: 'east' });
        console.log(
          `## calls: ${CALLS} per line, one at a time, after ${CALLS / 10} warm-up calls`,
        );
        for (const [label, tool, args] of [
          ['point lookup, gateway DB ', 'query_report_lookup_here', orderId],
          ['point lookup, source     ', 'query_report_lookup_wh', orderId],
          ['aggregate, gateway DB    ', 'query_report_region_here', east],
          ['aggregate, source        ', 'query_report_region_wh', east],
          ['point lookup, gateway DB ', 'query_report_lookup_here', orderId],
          ['point lookup, source     ', 'query_report_lookup_wh', orderId],
        ] as const) {
          await timedCalls(gw, alice, tool, args, CALLS / 10);
          const r = await timedCalls(gw, alice, tool, args, CALLS);
          console.log(`${label} ${fmt(r)}  (${uptime()})`);
        }
        // another tenant's p50 while acme's source is down and acme keeps calling it
        const other = () => timedCalls(gw, gary, 'query_report_sales_by_region', east, CALLS);
        await other();
        console.log(`globex, source up         ${fmt(await other())}  (${uptime()})`);
        await proxy.stop();
        let hammering = true;
        const failing = (async () => {
          let n = 0;
          while (hammering) {
            await timedCalls(gw, alice, 'query_report_region_whp', east, 1);
            n++;
          }
          return n;
        })();
        const down = await other();
        hammering = false;
        const acmeCalls = await failing;
        console.log(
          `globex, source down       ${fmt(down)}  (${uptime()}; meanwhile ${acmeCalls} acme calls on the down source, all DATASOURCE_UNAVAILABLE)`,
        );
        const failed = await timedCalls(gw, alice, 'query_report_region_whp', east, 50);
        console.log(`acme on the down source   ${fmt(failed)}  (${uptime()})`);
      } finally {
        await gw.close();
      }
    });
  } finally {
    await proxy.stop();
    await wh.drop();
  }
}

runMain(main);
