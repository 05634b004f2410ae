import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import type { ChildProcess } from 'node:child_process';
import {
  freePort,
  HAPROXY_CONFIG,
  HAPROXY_MISSING,
  haproxyPath,
} from '../../scripts/cluster/cluster';
import { eventually } from '../support/eventually';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { MCP_ACCEPT, MCP_INITIALIZE } from '../support/mcp';
import { MODERN_META, modernPost, openListen } from '../support/mcp-modern';
import { createTestDatabase } from '../support/test-database';
import type { TestDatabase } from '../support/test-database';

/**
 * deploy/haproxy/haproxy.cfg in front of two replicas (issue 29): MCP 2026-07-28 requests go
 * round-robin without affinity, a 2025 session sticks to one replica.
 */
const haproxy = haproxyPath();
if (!haproxy) process.stderr.write(`SKIPPED MCP eras behind HAProxy: ${HAPROXY_MISSING}\n`);
const itWithHaproxy = haproxy ? it : it.skip;
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };

describe('MCP eras behind HAProxy (deploy/haproxy/haproxy.cfg)', () => {
  let db: TestDatabase;
  let a: RunningGateway;
  let b: RunningGateway;
  let lb: ChildProcess | undefined;
  let url = '';
  let token = '';
  const prefix = `test-eras-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    if (!haproxy) return;
    db = await createTestDatabase();
    // 2025 sessions are shared through Redis, as deployed: the replica the hash picks for the
    // session id continues a session the other one opened
    const shared = { REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_KEY_PREFIX: prefix };
    a = await startGateway(shared, db);
    b = await startGateway(shared, db);
    token = await mintToken(alice);
    const [port, stats] = [await freePort(), await freePort()];
    lb = spawn(haproxy, ['-f', HAPROXY_CONFIG, '-db'], {
      env: {
        ...process.env,
        GW_LB_BIND: `127.0.0.1:${port}`,
        GW_LB_STATS: `127.0.0.1:${stats}`,
        GW_REPLICA_1: new URL(a.baseUrl).host,
        GW_REPLICA_2: new URL(b.baseUrl).host,
      },
      stdio: 'ignore',
    });
    url = `http://127.0.0.1:${port}/mcp`;
    // both replicas pass their first health check
    await eventually(
      async () => {
        const csv = await (await fetch(`http://127.0.0.1:${stats}/;csv`)).text();
        const up = csv
          .split('\n')
          .map((l) => l.split(','))
          .filter((f) => f[0] === 'gateways' && f[1]?.startsWith('gw') && f[17] === 'UP');
        expect(up).toHaveLength(2);
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
  }, 60_000);
  afterAll(async () => {
    lb?.kill('SIGTERM');
    await a?.close();
    await b?.close();
    await db?.drop();
    if (!haproxy) return;
    const redis = new Redis(process.env.TEST_REDIS_URL!);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.unlink(...keys);
    redis.disconnect();
  });

  itWithHaproxy('spreads 2026-07-28 requests over both replicas, one after the other', async () => {
    const servedBy: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await modernPost(url, token, 'tools/list', { _meta: MODERN_META }, { id: i });
      expect(res.status).toBe(200);
      servedBy.push(res.headers.get('x-served-by') ?? '');
    }
    expect(new Set(servedBy)).toEqual(new Set(['gw1', 'gw2']));
    for (let i = 1; i < servedBy.length; i++) expect(servedBy[i]).not.toBe(servedBy[i - 1]);
    const listen = await openListen(url, token, { toolsListChanged: true });
    try {
      expect(await listen.next()).toMatchObject({
        method: 'notifications/subscriptions/acknowledged',
      });
    } finally {
      listen.close();
    }
  });

  itWithHaproxy('keeps a 2025 session on the replica that holds it', async () => {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const init = await fetch(url, {
      method: 'POST',
      headers: { ...headers, ...MCP_ACCEPT },
      body: JSON.stringify(MCP_INITIALIZE),
    });
    expect(init.status).toBe(200);
    const session = init.headers.get('mcp-session-id')!;
    // a session id the 2025 transport issued (visible ASCII, not empty)
    expect(session).toMatch(/^[\x21-\x7e]{8,}$/);
    const servedBy = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          ...headers,
          ...MCP_ACCEPT,
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 10 + i, method: 'tools/list' }),
      });
      expect(res.status).toBe(200);
      servedBy.add(res.headers.get('x-served-by') ?? '');
    }
    expect(servedBy.size).toBe(1);
  });
});
