import Redis from 'ioredis';
import { eventually } from '../support/eventually';
import { mintToken } from '../support/gateway';
import { MODERN_META, modernPost } from '../support/mcp-modern';
import { startReplicaPair } from '../support/replica-pair';
import type { ReplicaPair } from '../support/replica-pair';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { CACHED_CUSTOMER, WHO_AM_I } from '../support/cached-reports';

/**
 * The result cache (issue #41) on two replicas sharing Postgres and Redis. Each report reads
 * `clock_timestamp()` next to its rows: a value Postgres makes anew at every execution, so an
 * answer with the same `read_at` was not read again (the proof comes from the database side).
 */
const admin: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const bob: TokenClaims = { tenant: 'acme', user: 'bob', roles: ['analyst'] };
const gina: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };

interface Answer {
  is_error: boolean;
  cached_at?: string;
  result: { rows: Array<Record<string, unknown>> };
}

describe('result cache (e2e, two replicas, Postgres and Redis)', () => {
  let pair: ReplicaPair;
  let redis: Redis;

  const put = (gw: RunningGateway, who: TokenClaims, id: string, doc: unknown) =>
    gw.request(`/v1/admin/reports/${id}`, { method: 'PUT', as: who, json: doc });
  const call = async (
    gw: RunningGateway,
    who: TokenClaims,
    tool: string,
    args: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> => {
    const res = await gw.request(`/v1/tools/${tool}/call`, {
      method: 'POST',
      as: who,
      json: { arguments: args },
      headers,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Answer;
    expect(body.is_error).toBe(false);
    return body;
  };
  const readAt = (a: Answer) => a.result.rows[0].read_at as string;

  beforeAll(async () => {
    pair = await startReplicaPair('result-cache');
    redis = new Redis(process.env.TEST_REDIS_URL!);
    for (const who of [admin, { tenant: 'globex', user: 'groot', roles: ['admin'] }]) {
      expect((await put(pair.a, who, 'cached_customer', CACHED_CUSTOMER)).status).toBeLessThan(300);
      expect((await put(pair.a, who, 'who_am_i', WHO_AM_I)).status).toBeLessThan(300);
    }
    // both replicas serve the new reports before the tests start
    await eventually(async () => {
      for (const gw of [pair.a, pair.b])
        await call(gw, alice, 'query_report_who_am_i', {}, { 'cache-control': 'no-cache' });
    });
  });
  afterAll(async () => {
    redis?.disconnect();
    await pair?.close();
  });

  it('answers a repeated call from the cache: the same read_at, with cached_at, no new execution', async () => {
    const first = await call(pair.a, alice, 'query_report_cached_customer', { customer_id: 2 });
    expect(first.cached_at).toBeUndefined();
    const again = await call(pair.a, alice, 'query_report_cached_customer', { customer_id: 2 });
    expect(readAt(again)).toBe(readAt(first));
    expect(again.cached_at).toEqual(expect.any(String));
    expect(Date.parse(again.cached_at!)).toBeLessThanOrEqual(Date.now());
    // another user of the tenant shares it (no identity-bound parameter): that is the point
    const shared = await call(pair.a, bob, 'query_report_cached_customer', { customer_id: 2 });
    expect(readAt(shared)).toBe(readAt(first));
    // other arguments are another query
    const other = await call(pair.a, alice, 'query_report_cached_customer', { customer_id: 3 });
    expect(other.result.rows[0].customer_id).toBe(3);
    expect(other.cached_at).toBeUndefined();
  });

  it("is answered by the second replica from the first replica's entry (Redis)", async () => {
    const first = await call(pair.a, alice, 'query_report_cached_customer', { customer_id: 4 });
    const there = await call(pair.b, bob, 'query_report_cached_customer', { customer_id: 4 });
    expect(readAt(there)).toBe(readAt(first));
    expect(there.cached_at).toBe(new Date(Date.parse(there.cached_at!)).toISOString());
  });

  it('never shares rows between callers whose bound identity values differ', async () => {
    const a = await call(pair.a, alice, 'query_report_who_am_i', {});
    const b = await call(pair.a, bob, 'query_report_who_am_i', {});
    expect(a.result.rows[0].who).toBe('alice');
    expect(b.result.rows[0].who).toBe('bob');
    expect(readAt(b)).not.toBe(readAt(a));
    expect((await call(pair.b, alice, 'query_report_who_am_i', {})).result.rows[0].who).toBe(
      'alice',
    );
  });

  it('never shares rows across tenants', async () => {
    const acme = await call(pair.a, alice, 'query_report_cached_customer', { customer_id: 5 });
    const globex = await call(pair.a, gina, 'query_report_cached_customer', { customer_id: 5 });
    expect(globex.cached_at).toBeUndefined();
    expect(readAt(globex)).not.toBe(readAt(acme));
  });

  it('reads afresh for Cache-Control: no-cache, and keeps that fresh answer', async () => {
    const first = await call(pair.a, alice, 'query_report_cached_customer', { customer_id: 6 });
    const fresh = await call(
      pair.a,
      alice,
      'query_report_cached_customer',
      { customer_id: 6 },
      { 'cache-control': 'no-cache' },
    );
    expect(fresh.cached_at).toBeUndefined();
    expect(readAt(fresh)).not.toBe(readAt(first));
    const after = await call(pair.b, alice, 'query_report_cached_customer', { customer_id: 6 });
    expect(readAt(after)).toBe(readAt(fresh));
  });

  it('makes a changed report answer fresh on every replica', async () => {
    const before = await call(pair.a, alice, 'query_report_cached_customer', { customer_id: 7 });
    await call(pair.b, alice, 'query_report_cached_customer', { customer_id: 7 });
    const changed = { ...CACHED_CUSTOMER, description: `${CACHED_CUSTOMER.description} Changed.` };
    expect((await put(pair.a, admin, 'cached_customer', changed)).status).toBe(200);
    for (const gw of [pair.a, pair.b])
      await eventually(async () => {
        const now = await call(gw, alice, 'query_report_cached_customer', { customer_id: 7 });
        expect(readAt(now)).not.toBe(readAt(before));
      });
  });

  it('runs the query once for 100 identical concurrent calls', async () => {
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        call(pair.a, alice, 'query_report_cached_customer', { customer_id: 8 }),
      ),
    );
    expect(new Set(answers.map(readAt)).size).toBe(1);
  });

  it('treats a corrupt or foreign Redis value as a miss, never as an answer', async () => {
    const first = await call(pair.a, alice, 'query_report_cached_customer', { customer_id: 9 });
    const keys = await redis.keys('test-result-cache-*:result:*');
    expect(keys.length).toBeGreaterThan(0);
    const forged = first.result.rows[0];
    for (const key of keys) await redis.set(key, `g1.forged.${JSON.stringify(forged)}`, 'EX', 600);
    // replica b has no L1 entry for customer 9: it reads Redis, refuses the value, runs the SQL
    const b = await call(pair.b, alice, 'query_report_cached_customer', { customer_id: 9 });
    expect(b.cached_at).toBeUndefined();
    expect(b.result.rows[0].customer_id).toBe(9);
    expect(readAt(b)).not.toBe(readAt(first));
  });

  it('says cached_at in the MCP result _meta, and reads afresh for _meta gateway/cache no-cache', async () => {
    const token = await mintToken(alice);
    const mcpCall = async (meta: Record<string, unknown> = {}) => {
      const answer = await modernPost(`${pair.a.baseUrl}/mcp`, token, 'tools/call', {
        name: 'query_report_cached_customer',
        arguments: { customer_id: 10 },
        _meta: { ...MODERN_META, ...meta },
      });
      expect(answer.status).toBe(200);
      const result = answer.body.result as {
        isError?: boolean;
        structuredContent: { rows: Array<{ read_at: string }> };
        _meta: Record<string, unknown>;
      };
      expect(result.isError).toBeFalsy();
      return result;
    };
    const first = await mcpCall();
    expect(first._meta.cached_at).toBeUndefined();
    const again = await mcpCall();
    expect(again._meta.cached_at).toEqual(expect.any(String));
    expect(again.structuredContent.rows[0].read_at).toBe(first.structuredContent.rows[0].read_at);
    const fresh = await mcpCall({ 'gateway/cache': 'no-cache' });
    expect(fresh._meta.cached_at).toBeUndefined();
    expect(fresh.structuredContent.rows[0].read_at).not.toBe(
      first.structuredContent.rows[0].read_at,
    );
  });

  it('keeps cache_ttl_seconds in the admin API and refuses one past a day', async () => {
    const got = await pair.a.request('/v1/admin/reports/cached_customer', { as: admin });
    expect(
      ((await got.json()) as { report: { cache_ttl_seconds: number } }).report.cache_ttl_seconds,
    ).toBe(600);
    const tooLong = await put(pair.a, admin, 'cached_customer', {
      ...CACHED_CUSTOMER,
      cache_ttl_seconds: 86_401,
    });
    expect(tooLong.status).toBe(422);
    expect(await tooLong.text()).toMatch(/cache_ttl_seconds/);
  });

  it("shows in the report's usage what share of its calls the cache answered", async () => {
    // a report of this test's own, called on one replica only: its counts are this test's
    expect((await put(pair.a, admin, 'cached_usage', CACHED_CUSTOMER)).status).toBe(201);
    await eventually(() => call(pair.a, alice, 'query_report_cached_usage', { customer_id: 1 }));
    for (let i = 0; i < 3; i++)
      await call(pair.a, alice, 'query_report_cached_usage', { customer_id: 1 });
    const res = await pair.a.request(
      '/v1/admin/console/usage?tool=query_report_cached_usage&days=1',
      {
        as: admin,
      },
    );
    expect(res.status).toBe(200);
    const { summary } = (await res.json()) as {
      summary: { calls: number; cached: number; cached_share: number };
    };
    expect(summary.calls).toBe(4);
    expect(summary.cached).toBe(3);
    expect(summary.cached_share).toBeCloseTo(0.75);
  });
});
