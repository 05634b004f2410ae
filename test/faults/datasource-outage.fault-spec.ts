import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { eventually } from '../support/eventually';
import { TcpProxy } from '../support/tcp-proxy';
import {
  createWarehouseDatabase,
  NORTH_ORDERS_SQL,
  readSalesOrders,
  warehouseServer,
  WH_ORDERS_REPORT,
  WAREHOUSE_NETWORKS,
} from '../support/warehouse';
import type { WarehouseDatabase } from '../support/warehouse';
import { randomBytes } from 'node:crypto';

/**
 * A tenant's data source that goes down, slows down and comes back (issue #30), through a TCP
 * proxy in front of the warehouse cluster: only that tenant's calls on that source fail, fast,
 * as DATASOURCE_UNAVAILABLE; the other tenant (and the tenant's own reports in the gateway's
 * database) are served throughout; the source recovers without a restart.
 */
const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const gary: TokenClaims = { tenant: 'globex', user: 'gary', roles: ['analyst'] };
const CONNECT_TIMEOUT_MS = 1000;

interface Outcome {
  is_error: boolean;
  error?: { code: string; message: string };
  result?: { rows: unknown[] };
}

describe('a tenant data source down, slow and back (faults, TCP proxy)', () => {
  let gw: RunningGateway;
  let wh: WarehouseDatabase;
  let proxy: TcpProxy;

  const call = async (who: TokenClaims, tool: string, args: unknown) => {
    const started = performance.now();
    const res = await gw.request(`/v1/tools/${tool}/call`, {
      method: 'POST',
      as: who,
      json: { arguments: args },
    });
    expect(res.status).toBe(200);
    return { outcome: (await res.json()) as Outcome, ms: performance.now() - started };
  };
  const onSource = () => call(alice, 'query_report_wh_orders', { region: 'north' });
  const otherTenant = () => call(gary, 'query_report_sales_by_region', { region: 'east' });
  const ownDatabase = () => call(alice, 'query_report_sales_by_region', { region: 'east' });
  const served = (o: Outcome) => {
    expect(o.error).toBeUndefined();
    expect(o.result?.rows.length).toBeGreaterThan(0);
  };

  beforeAll(async () => {
    wh = await createWarehouseDatabase(NORTH_ORDERS_SQL);
    const reader = await wh.login(readSalesOrders);
    const server = await warehouseServer();
    proxy = new TcpProxy(server.host, server.port);
    await proxy.start();
    const url = new URL(reader.url);
    url.hostname = '127.0.0.1'; // the proxy listens on loopback, wherever the warehouse is
    url.port = String(proxy.port);
    gw = await startGateway({
      ...WAREHOUSE_NETWORKS,
      DATASOURCE_KEY: randomBytes(32).toString('hex'),
      DATASOURCE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      DATASOURCE_BREAKER_FAILURES: '2',
      DATASOURCE_BREAKER_COOLDOWN_MS: '1000',
    });
    const put = await gw.request('/v1/admin/datasources/wh', {
      method: 'PUT',
      as: root,
      json: { url: url.toString(), schema: 'sales', tables: ['orders'], statement_timeout_ms: 500 },
    });
    expect([put.status, await put.text()]).toEqual([201, expect.any(String)]);
    const report = await gw.request('/v1/admin/reports/wh_orders', {
      method: 'PUT',
      as: root,
      json: WH_ORDERS_REPORT,
    });
    expect(report.status).toBe(201);
  });
  afterAll(async () => {
    await gw?.close();
    await proxy?.stop();
    await wh?.drop();
  });

  it('serves the source while it is up', async () => {
    served((await onSource()).outcome);
  });

  it('source lost mid-call: that call fails as DATASOURCE_UNAVAILABLE, the other tenant is served', async () => {
    proxy.mode = { kind: 'delay', ms: 10_000 };
    const pending = onSource();
    // the server has answered; its answer is held in the proxy: now the connection goes
    await eventually(async () => {
      if (proxy.held === 0) throw new Error('no answer held yet');
    });
    proxy.cut();
    proxy.mode = { kind: 'pass' };
    const { outcome, ms } = await pending;
    expect(outcome.error?.code).toBe('DATASOURCE_UNAVAILABLE');
    expect(outcome.error?.message).toMatch(/"wh" is unavailable right now \(connection lost\)/);
    expect(ms).toBeLessThan(CONNECT_TIMEOUT_MS * 2);
    served((await otherTenant()).outcome);
    // a blip, not an outage: the next call reconnects
    served((await onSource()).outcome);
  });

  it('source down: its calls fail within the connect timeout, then at once (breaker); others are served', async () => {
    await proxy.stop();
    const failures: Array<{ code?: string; ms: number; message?: string }> = [];
    for (let i = 0; i < 4; i++) {
      const { outcome, ms } = await onSource();
      failures.push({ code: outcome.error?.code, ms, message: outcome.error?.message });
      served((await otherTenant()).outcome);
      served((await ownDatabase()).outcome);
    }
    for (const f of failures) {
      expect(f.code).toBe('DATASOURCE_UNAVAILABLE');
      expect(f.ms).toBeLessThan(CONNECT_TIMEOUT_MS + 500);
    }
    // after two failures in a row the breaker is open: no connect attempted, the message says so
    expect(failures[2].message).toMatch(/\(circuit open\); try again in \d+ s/);
    const metrics = await (await gw.request('/metrics')).text();
    expect(metrics).toMatch(/gateway_datasource_breaker_open\{[^}]*source="wh"[^}]*\} 1/);
    expect(metrics).toMatch(
      /gateway_datasource_calls_total\{[^}]*outcome="unavailable"[^}]*\} [4-9]/,
    );
    expect(metrics).not.toContain(String(proxy.port) + '/');
  });

  it('source back: it recovers by itself, without a restart', async () => {
    await proxy.start(proxy.port);
    await eventually(async () => served((await onSource()).outcome), { timeoutMs: 10_000 });
    const health = (await (await gw.request('/v1/admin/datasources/wh', { as: root })).json()) as {
      health: { reachable: boolean; endpoints: Array<{ circuit: string }> };
    };
    expect(health.health.reachable).toBe(true);
    expect(health.health.endpoints[0].circuit).toBe('closed');
  });

  it('slow source: its calls fail within its timeout, others are served meanwhile', async () => {
    proxy.mode = { kind: 'delay', ms: 4000 };
    try {
      const slow = onSource();
      const others = await Promise.all([otherTenant(), otherTenant(), ownDatabase()]);
      for (const o of others) {
        served(o.outcome);
        expect(o.ms).toBeLessThan(1000);
      }
      const { outcome, ms } = await slow;
      expect(outcome.error?.code).toBe('DATASOURCE_UNAVAILABLE');
      // statement_timeout_ms 500 + the client's 1 s of grace, never the proxy's 4 s
      expect(ms).toBeLessThan(2500);
    } finally {
      proxy.mode = { kind: 'pass' };
      proxy.cut();
    }
    await eventually(async () => served((await onSource()).outcome), { timeoutMs: 10_000 });
  });
});
