import { Metrics } from '@app/registry';
import Redis from 'ioredis';
import { sql } from 'kysely';
import { callTool, contained, listedTools } from '../support/containment';
import { eventually } from '../support/eventually';
import { changeCatalog, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { TcpProxy } from '../support/tcp-proxy';
import type { ProxyMode } from '../support/tcp-proxy';
import { createTestDatabase } from '../support/test-database';
import type { TestDatabase } from '../support/test-database';

const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const fiona: TokenClaims = { tenant: 'acme', user: 'fiona', roles: ['finance'] };
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const groot: TokenClaims = { tenant: 'globex', user: 'groot', roles: ['admin'] };
const gina: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };

const REPORT = {
  name: 'Orders counted during a Redis fault',
  description: 'Written while Redis was failing: it must be kept and served.',
  category: 'sales',
  status: 'active',
  sql_template: 'SELECT count(*) AS n FROM orders',
  filters: [],
  fields: [],
};

/**
 * Fault: Redis (L2) down, slow, or answering bytes that are not RESP, through a TCP proxy in
 * front of the real Redis. The gateway must serve every list and call from memory and
 * Postgres with the answers a gateway without Redis gives, keep an admin write made during
 * the fault, and use Redis again once it is sound.
 */
describe('faults: Redis down, slow or answering garbage', () => {
  let database: TestDatabase;
  let reference: RunningGateway;
  let probe: Redis;
  const target = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');

  beforeAll(async () => {
    database = await createTestDatabase();
    // the oracle: the same database, no Redis at all
    reference = await startGateway({}, database);
    probe = new Redis(target.toString());
  });
  afterAll(async () => {
    probe.disconnect();
    await reference.close();
    await database.drop();
  });

  /** A gateway whose Redis is the proxy, with L2 in use (its first list was written there). */
  async function throughProxy() {
    const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
    await proxy.start();
    const prefix = `faults-redis-${Date.now()}-${Math.random().toString(16).slice(2, 8)}`;
    const gw = await startGateway(
      { REDIS_URL: `redis://127.0.0.1:${proxy.port}${target.pathname}`, REDIS_KEY_PREFIX: prefix },
      database,
    );
    await listedTools(gw, root);
    await eventually(async () => expect(await probe.keys(`${prefix}:list:*`)).not.toHaveLength(0));
    return { proxy, gw, prefix };
  }

  const answers = async (gw: RunningGateway) => ({
    // lists nobody asked this instance for yet: L1 misses that read L2 before Postgres
    lists: await Promise.all([fiona, alice, groot, gina].map((who) => listedTools(gw, who))),
    revenue: (await callTool(gw, fiona, 'query_report_revenue_by_month', { year: 2025 })).body,
    sales: (await callTool(gw, gina, 'query_report_sales_by_region', { region: 'east' })).body,
  });
  const withoutTrace = ({ trace_id: _t, ...rest }: Record<string, unknown>) => rest;

  it.each<[string, ProxyMode | 'down']>([
    ['down (the proxy closed every connection and refuses new ones)', 'down'],
    ['slow (every reply held back a minute)', { kind: 'delay', ms: 60_000 }],
    ['answering garbage at the protocol level', { kind: 'garbage' }],
  ])(
    'Redis %s: lists and calls answer from Postgres, a write is kept',
    async (_name, fault) => {
      const { proxy, gw, prefix } = await throughProxy();
      const id = `redis_fault_${Math.random().toString(16).slice(2, 8)}`;
      try {
        const port = proxy.port;
        if (fault === 'down') await proxy.stop();
        else proxy.mode = fault;
        const errorsBefore = gw.app.get(Metrics).value('gateway_l2_errors_total');

        // a catalog change makes every catalog and list of acme cold: each must come from Postgres
        await changeCatalog(gw, 'acme', (db) =>
          sql`UPDATE gateway.reports SET description = description || '.' WHERE tenant_id = 'acme' AND id = 'revenue_by_month'`.execute(
            db,
          ),
        );
        const during = await answers(gw);
        const expected = await answers(reference);
        expect(during.lists).toEqual(expected.lists);
        expect(during.lists[0]).toContain('query_report_revenue_by_month');
        expect(withoutTrace(during.revenue)).toEqual(withoutTrace(expected.revenue));
        expect(during.revenue).toMatchObject({ is_error: false });
        expect(withoutTrace(during.sales)).toEqual(withoutTrace(expected.sales));
        expect(during.sales).toMatchObject({ is_error: false });
        expect(gw.app.get(Metrics).value('gateway_l2_errors_total')).toBeGreaterThan(errorsBefore);

        // an admin write during the fault is stored and served at once
        const put = await contained(
          await gw.request(`/v1/admin/reports/${id}`, { method: 'PUT', as: root, json: REPORT }),
        );
        expect(put.status).toBe(201);
        await eventually(async () => {
          expect(await listedTools(gw, root)).toContain(`query_report_${id}`);
        });
        expect((await callTool(gw, root, `query_report_${id}`)).body).toMatchObject({
          is_error: false,
          result: { rows: [{ n: expect.any(Number) }] },
        });

        // Redis sound again: the gateway writes to it again by itself
        if (fault === 'down') await proxy.start(port);
        proxy.mode = { kind: 'pass' };
        proxy.cut(); // late replies of the slow mode are dropped with their connection
        const before = new Set(await probe.keys(`${prefix}:list:*`));
        await eventually(
          async () => {
            await changeCatalog(gw, 'acme', (db) =>
              sql`UPDATE gateway.reports SET description = description || '.' WHERE tenant_id = 'acme' AND id = ${id}`.execute(
                db,
              ),
            );
            expect(await listedTools(gw, root)).toContain(`query_report_${id}`);
            const keys = await probe.keys(`${prefix}:list:*`);
            expect(keys.filter((k) => !before.has(k))).not.toHaveLength(0);
          },
          { timeoutMs: 15_000, intervalMs: 200 },
        );
      } finally {
        await gw.close();
        await proxy.stop();
        await sql`DELETE FROM gateway.reports WHERE tenant_id = 'acme' AND id = ${id}`.execute(
          database.handle.db,
        );
      }
    },
    60_000,
  );
});
