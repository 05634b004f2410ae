import { randomBytes } from 'node:crypto';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
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

/**
 * A data source with two read replicas (issue #30): each server behind a TCP proxy of its own
 * (all three reach the warehouse cluster), so the test sees which one a call used. Calls take
 * the replicas in turn; a replica that goes down is skipped (the call is served by the other
 * replica, then by the primary when both are down), and it takes calls again when it is back.
 */
const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };

interface Outcome {
  is_error: boolean;
  error?: { code: string };
  result?: { rows: unknown[] };
}

describe('a data source with read replicas: round robin and failover (faults, TCP proxies)', () => {
  let gw: RunningGateway;
  let wh: WarehouseDatabase;
  let primary: TcpProxy;
  let replicas: TcpProxy[];

  const call = async () => {
    const res = await gw.request('/v1/tools/query_report_wh_orders/call', {
      method: 'POST',
      as: alice,
      json: { arguments: { region: 'north' } },
    });
    expect(res.status).toBe(200);
    const outcome = (await res.json()) as Outcome;
    expect(outcome.error).toBeUndefined();
    expect(outcome.result?.rows.length).toBe(10);
  };
  /** Requests each server got while `calls` calls ran (primary, replica 1, replica 2). */
  const used = async (calls: number) => {
    const before = [primary, ...replicas].map((p) => p.forwarded);
    for (let i = 0; i < calls; i++) await call();
    return [primary, ...replicas].map((p, i) => p.forwarded - before[i]);
  };

  beforeAll(async () => {
    wh = await createWarehouseDatabase(NORTH_ORDERS_SQL);
    const reader = await wh.login(readSalesOrders);
    const server = await warehouseServer();
    primary = new TcpProxy(server.host, server.port);
    replicas = [new TcpProxy(server.host, server.port), new TcpProxy(server.host, server.port)];
    await Promise.all([primary, ...replicas].map((p) => p.start()));
    const through = (p: TcpProxy) => {
      const url = new URL(reader.url);
      url.hostname = '127.0.0.1'; // the proxy listens on loopback, wherever the warehouse is
      url.port = String(p.port);
      return url.toString();
    };
    gw = await startGateway({
      ...WAREHOUSE_NETWORKS,
      DATASOURCE_KEY: randomBytes(32).toString('hex'),
      DATASOURCE_CONNECT_TIMEOUT_MS: '1000',
      DATASOURCE_BREAKER_FAILURES: '1',
      DATASOURCE_BREAKER_COOLDOWN_MS: '500',
    });
    const put = await gw.request('/v1/admin/datasources/wh', {
      method: 'PUT',
      as: root,
      json: {
        url: through(primary),
        replicas: replicas.map(through),
        schema: 'sales',
        tables: ['orders'],
        pool_max: 1,
      },
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
    await Promise.all([primary, ...(replicas ?? [])].map((p) => p?.stop()));
    await wh?.drop();
  });

  it('takes the replicas in turn and leaves the primary alone while they are up', async () => {
    const [onPrimary, onFirst, onSecond] = await used(6);
    expect(onPrimary).toBe(0);
    // in turn: each replica served about half of the calls
    expect(onFirst).toBeGreaterThanOrEqual(3);
    expect(onSecond).toBeGreaterThanOrEqual(3);
  });

  it('a replica down: calls go on, served by the other replica; both down: by the primary', async () => {
    await replicas[0].stop();
    const [onPrimary, , onSecond] = await used(4);
    expect(onPrimary).toBe(0);
    expect(onSecond).toBeGreaterThanOrEqual(4);
    await replicas[1].stop();
    const [onPrimaryNow] = await used(3);
    expect(onPrimaryNow).toBeGreaterThanOrEqual(3);
  });

  it('a replica back takes calls again, without a restart', async () => {
    await replicas[0].start(replicas[0].port);
    await replicas[1].start(replicas[1].port);
    // the breaker lets a trial call through after its cooldown: poll, with a deadline
    const deadline = Date.now() + 10_000;
    let back = [0, 0, 0];
    while (Date.now() < deadline) {
      back = await used(2);
      if (back[1] + back[2] > 0) break;
    }
    expect(back[1] + back[2]).toBeGreaterThan(0);
  });
});
