import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import Redis from 'ioredis';
import { eventually } from '../support/eventually';
import { mintToken, startGateway } from '../support/gateway';
import { MCP_ACCEPT, MCP_INITIALIZE, MCP_TOOLS_LIST, watchStreams } from '../support/mcp';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { TcpProxy } from '../support/tcp-proxy';
import { createTestDatabase } from '../support/test-database';
import type { TestDatabase } from '../support/test-database';

const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };

/**
 * Two replicas on one database and one Redis: MCP sessions live in Redis, so either replica
 * continues a session the other opened; the per-user cap evicts the least recently used
 * session across replicas; streamless sessions expire early.
 */
describe('MCP sessions shared through Redis (e2e, two replicas)', () => {
  let db: TestDatabase;
  let a: RunningGateway;
  let b: RunningGateway;
  let redis: Redis;
  const prefix = `test-mcp-${randomBytes(4).toString('hex')}`;
  const clients: Client[] = [];
  // stopped after each test, so a test that fails or times out leaves no listener behind
  const proxies: TcpProxy[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    const env = {
      REDIS_URL: process.env.TEST_REDIS_URL!,
      REDIS_KEY_PREFIX: prefix,
      MCP_MAX_SESSIONS_PER_USER: '10',
      MCP_SESSION_IDLE_MS: '60000',
      MCP_SESSION_STREAMLESS_IDLE_MS: '1500',
    };
    a = await startGateway(env, db);
    b = await startGateway(env, db);
    redis = new Redis(process.env.TEST_REDIS_URL!, { keyPrefix: `${prefix}:` });
  });
  afterEach(async () => {
    await Promise.all(proxies.splice(0).map((p) => p.stop()));
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await a.close();
    await b.close();
    await db.drop();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.unlink(...keys.map((k) => k.slice(prefix.length + 1)));
    redis.disconnect();
  });

  async function initialize(gw: RunningGateway, who: TokenClaims): Promise<string> {
    const res = await gw.request('/mcp', {
      method: 'POST',
      as: who,
      headers: MCP_ACCEPT,
      json: MCP_INITIALIZE,
    });
    expect(res.status).toBe(200);
    return res.headers.get('mcp-session-id')!;
  }
  const listOn = (gw: RunningGateway, id: string, who: TokenClaims) =>
    gw.request('/mcp', {
      method: 'POST',
      as: who,
      headers: { ...MCP_ACCEPT, 'mcp-session-id': id },
      json: MCP_TOOLS_LIST,
    });

  async function connect(url: string, who: TokenClaims, streams = watchStreams()): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${await mintToken(who)}` } },
      fetch: streams.fetch,
      // a client that keeps trying for the whole test, as long-lived agents do
      reconnectionOptions: {
        initialReconnectionDelay: 50,
        maxReconnectionDelay: 200,
        reconnectionDelayGrowFactor: 1.5,
        maxRetries: 100,
      },
    });
    const client = new Client({ name: 'shared-sessions', version: '1' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  it('continues on replica B a session opened on replica A (same tools, no new initialize)', async () => {
    const id = await initialize(a, alice);
    const onA = (await (await listOn(a, id, alice)).json()) as { result: { tools: unknown[] } };
    const res = await listOn(b, id, alice);
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBe(id);
    const onB = (await res.json()) as { result: { tools: unknown[] } };
    expect(onB.result.tools).toEqual(onA.result.tools);
    const call = await b.request('/mcp', {
      method: 'POST',
      as: alice,
      headers: { ...MCP_ACCEPT, 'mcp-session-id': id },
      json: {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'query_report_sales_by_region', arguments: { region: 'east' } },
      },
    });
    const called = (await call.json()) as { result: { structuredContent: { rows: unknown[] } } };
    expect(called.result.structuredContent.rows).toHaveLength(1);
  });

  it('refuses a shared session to another user and to another tenant on every replica', async () => {
    const id = await initialize(a, alice);
    for (const gw of [a, b]) {
      expect((await listOn(gw, id, { ...alice, user: 'mallory' })).status).toBe(403);
      expect((await listOn(gw, id, { ...alice, tenant: 'globex' })).status).toBe(403);
    }
    expect((await listOn(b, id, alice)).status).toBe(200);
    expect((await listOn(b, 'no-such-session', alice)).status).toBe(404);
  });

  it('keeps a session whose state Redis lost (restarted empty): its replica saves it again', async () => {
    const id = await initialize(a, alice);
    expect((await listOn(a, id, alice)).status).toBe(200);
    await redis.del(`mcp:s:${id}`, `mcp:e:${id}`);
    await eventually(
      async () => {
        expect((await listOn(a, id, alice)).status).toBe(200);
        expect(await redis.exists(`mcp:s:${id}`)).toBe(1);
      },
      { timeoutMs: 5000, intervalMs: 250 },
    );
    expect((await listOn(b, id, alice)).status).toBe(200);
    // a session ended on purpose leaves a tombstone: it is not brought back
    const ended = await a.request('/mcp', {
      method: 'DELETE',
      as: alice,
      headers: { 'mcp-session-id': id },
    });
    expect(ended.status).toBe(200);
    await eventually(async () => expect((await listOn(b, id, alice)).status).toBe(404), {
      timeoutMs: 5000,
      intervalMs: 250,
    });
    expect(await redis.exists(`mcp:s:${id}`)).toBe(0);
  });

  it('keeps the client working when its replica disappears: list_changed arrives from the other', async () => {
    // the client talks to a proxy in front of A; then the proxy drops every connection and
    // comes back on the same port in front of B, as a load balancer does when A dies
    const front = new TcpProxy('127.0.0.1', Number(new URL(a.baseUrl).port));
    proxies.push(front);
    const port = await front.start();
    const back = new TcpProxy('127.0.0.1', Number(new URL(b.baseUrl).port));
    proxies.push(back);
    const streams = watchStreams();
    const client = await connect(`http://127.0.0.1:${port}`, alice, streams);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      changes += 1;
    });
    await client.listTools();
    // the SDK opens its notification stream in the background and does not retry a first
    // attempt that fails: only a stream that was open is reconnected after a failover
    await streams.opened(1);
    await front.stop();
    await back.start(port);
    // the client's notification stream reconnects by itself, now to B, which continues
    // the session from Redis
    await streams.opened(2);
    const called = await client.callTool({
      name: 'query_report_sales_by_region',
      arguments: { region: 'west' },
    });
    expect(called.isError).toBeFalsy();
    const put = await b.request('/v1/admin/reports/after_failover', {
      method: 'PUT',
      as: root,
      json: {
        name: 'After failover',
        description: 'added while the client was on replica B',
        sql_template: 'SELECT count(*) AS n FROM orders',
        category: 'sales',
      },
    });
    expect(put.status).toBe(201);
    await eventually(async () => expect(changes).toBeGreaterThan(0), {
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain(
      'query_report_after_failover',
    );
    expect(changes).toBe(1);
  }, 45_000);

  it('opens 50 sessions that are never closed (LangChain, mcp-remote) and keeps working', async () => {
    const leaky: TokenClaims = { tenant: 'acme', user: 'leaky', roles: ['analyst'] };
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      // alternate replicas: the cap and its eviction hold across them
      const client = await connect((i % 2 === 0 ? a : b).baseUrl, leaky);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      const transport = (client as unknown as { transport: StreamableHTTPClientTransport })
        .transport;
      ids.push(transport.sessionId!);
    }
    const last = clients[clients.length - 1];
    const result = await last.callTool({
      name: 'query_report_sales_by_region',
      arguments: { region: 'north' },
    });
    expect(result.isError).toBeFalsy();
    // the ten most recent sessions live on; the forty before them were closed for them
    for (const id of ids.slice(-10)) expect((await listOn(b, id, leaky)).status).toBe(200);
    await eventually(
      async () => {
        for (const id of ids.slice(0, 40)) {
          expect((await listOn(a, id, leaky)).status).toBe(404);
          expect((await listOn(b, id, leaky)).status).toBe(404);
        }
      },
      { timeoutMs: 10_000, intervalMs: 200 },
    );
    const counted = await redis.keys('mcp:s:*');
    expect(counted.length).toBeLessThan(60);
  }, 60_000);

  it('expires a session without a notification stream after the short idle limit, not one with a stream', async () => {
    const streamed = await connect(a.baseUrl, { ...alice, user: 'streamer' });
    const streamedId = (streamed as unknown as { transport: StreamableHTTPClientTransport })
      .transport.sessionId!;
    const bare = await initialize(a, { ...alice, user: 'bare' });
    // the sweeper, not a request, must end it: watch Redis without touching the session
    await eventually(async () => expect(await redis.exists(`mcp:s:${bare}`)).toBe(0), {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    expect(await redis.exists(`mcp:s:${streamedId}`)).toBe(1);
    expect((await listOn(a, bare, { ...alice, user: 'bare' })).status).toBe(404);
    expect((await streamed.listTools()).tools.length).toBeGreaterThan(0);
  }, 20_000);
});
