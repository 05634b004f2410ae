import Redis from 'ioredis';
import { sql } from 'kysely';
import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { PrivateRedis } from '../support/redis-server';
import { TcpProxy } from '../support/tcp-proxy';
import { createTestDatabase } from '../support/test-database';
import type { TestDatabase } from '../support/test-database';

const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const fiona: TokenClaims = { tenant: 'acme', user: 'fiona', roles: ['finance'] };

async function listNames(
  gw: RunningGateway,
  who: TokenClaims,
): Promise<{ status: number; names: string[] }> {
  const res = await gw.request('/v1/tools', { as: who });
  const body = (await res.json()) as { tools?: Array<{ function: { name: string } }> };
  return { status: res.status, names: (body.tools ?? []).map((t) => t.function.name) };
}

async function callSales(gw: RunningGateway): Promise<{
  status: number;
  body: { is_error: boolean; error?: { code: string; message: string } };
}> {
  const res = await gw.request('/v1/tools/query_report_sales_by_region/call', {
    method: 'POST',
    as: alice,
    json: { arguments: { region: 'east' } },
  });
  return {
    status: res.status,
    body: (await res.json()) as { is_error: boolean; error?: { code: string; message: string } },
  };
}

const metric = async (gw: RunningGateway, name: string) => {
  const text = await (await gw.request('/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : 0;
};

describe('Redis down or unreachable', () => {
  let redis: PrivateRedis;
  let gw: RunningGateway;
  let prefix: string;

  beforeAll(async () => {
    redis = new PrivateRedis(await PrivateRedis.freePort());
    await redis.start();
    prefix = `degraded-${Date.now()}`;
    gw = await startGateway({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix });
  });
  afterAll(async () => {
    await gw.close();
    await redis.stop();
  });

  it('keeps lists and calls working from memory and Postgres, counts the errors, and uses L2 again once Redis is back', async () => {
    expect((await listNames(gw, alice)).status).toBe(200);
    expect(await (await gw.request('/readyz')).json()).toMatchObject({ redis: 'up' });
    await redis.stop();
    // a list nobody asked for yet needs L2 (miss), then Postgres: it must still work
    const finance = await listNames(gw, fiona);
    expect(finance.status).toBe(200);
    expect(finance.names).toContain('query_report_revenue_by_month');
    expect((await listNames(gw, alice)).status).toBe(200);
    const call = await callSales(gw);
    expect(call.status).toBe(200);
    expect(call.body.is_error).toBe(false);
    expect(await metric(gw, 'gateway_l2_errors_total')).toBeGreaterThan(0);
    const ready = await gw.request('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', redis: 'reconnecting' });

    await redis.start();
    const probe = new Redis(redis.url);
    let lastKey = (await gw.request('/v1/tools', { as: alice })).headers.get('x-toolset-key');
    try {
      // ioredis reconnects by itself; each round bumps the catalog version, so the next list is
      // built anew and written to L2 once Redis answers again
      await eventually(
        async () => {
          await sql`UPDATE gateway.business_contexts SET description = description || '.' WHERE tenant_id = 'acme' AND name = 'SALES'`.execute(
            gw.database.handle.db,
          );
          await eventually(async () =>
            expect(
              (await gw.request('/v1/tools', { as: alice })).headers.get('x-toolset-key'),
            ).not.toBe(lastKey),
          );
          lastKey = (await gw.request('/v1/tools', { as: alice })).headers.get('x-toolset-key');
          expect((await probe.keys(`${prefix}:list:*`)).length).toBeGreaterThan(0);
        },
        { timeoutMs: 10_000, intervalMs: 100 },
      );
    } finally {
      probe.disconnect();
    }
  }, 20_000);
});

describe('Redis unreachable from the start', () => {
  it('starts and serves without it', async () => {
    const gw = await startGateway({
      REDIS_URL: `redis://127.0.0.1:${await PrivateRedis.freePort()}`,
      REDIS_KEY_PREFIX: 'nowhere',
    });
    try {
      expect((await listNames(gw, alice)).names).toContain('query_report_sales_by_region');
      expect((await callSales(gw)).body.is_error).toBe(false);
      // ready (Redis is not required), and /readyz says Redis is not there
      const ready = await gw.request('/readyz');
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ready', redis: 'reconnecting' });
    } finally {
      await gw.close();
    }
  });
});

describe('Postgres down', () => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  let gw: RunningGateway;

  beforeAll(async () => {
    db = await createTestDatabase();
    const url = new URL(db.url);
    proxy = new TcpProxy(url.hostname, Number(url.port || 5432));
    await proxy.start();
    url.host = `127.0.0.1:${proxy.port}`;
    gw = await startGateway(
      { DATABASE_URL: url.toString(), CATALOG_STALE_AFTER_MS: '0' },
      { ...db, url: url.toString() },
    );
  });
  afterAll(async () => {
    await gw.close();
    await proxy.stop();
    await db.drop();
  });

  it('serves warm lists from memory, fails calls with a clear is_error, and says not ready; recovers when it is back', async () => {
    const warm = await listNames(gw, alice);
    expect(warm.names).toContain('query_report_sales_by_region');
    expect((await gw.request('/readyz')).status).toBe(200);
    const port = proxy.port;
    await proxy.stop();

    expect(await listNames(gw, alice)).toEqual(warm);
    const call = await callSales(gw);
    expect(call.status).toBe(200);
    expect(call.body).toMatchObject({
      is_error: true,
      error: {
        code: 'DATA_UNAVAILABLE',
        message: 'the report database is unavailable right now; try again later',
      },
    });
    const ready = await gw.request('/readyz');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not ready', database: 'unreachable' });
    // a tenant this instance never loaded cannot be answered: 503, not 500
    const cold = await gw.request('/v1/tools', {
      as: { tenant: 'globex', user: 'g', roles: ['analyst'] },
    });
    expect(cold.status).toBe(503);
    expect(await cold.text()).not.toContain('ECONNREFUSED');

    await proxy.start(port);
    await eventually(async () => expect((await gw.request('/readyz')).status).toBe(200), {
      timeoutMs: 10_000,
    });
    await eventually(async () => expect((await callSales(gw)).body.is_error).toBe(false), {
      timeoutMs: 10_000,
    });
  });
});
