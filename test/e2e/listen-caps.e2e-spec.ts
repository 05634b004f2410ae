import { eventually } from '../support/eventually';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { openListen } from '../support/mcp-modern';
import type { ListenStream } from '../support/mcp-modern';

/**
 * Issue 38, finding 1: one user's `subscriptions/listen` streams are capped on an instance
 * (MCP_LISTEN_PER_USER, default 8: a new one ends the user's oldest), a tenant's too
 * (MCP_LISTEN_PER_TENANT: refused with 429), so one analyst opening hundreds of streams holds
 * at most a handful while other users and /healthz are served.
 */
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const bob: TokenClaims = { tenant: 'acme', user: 'bob', roles: ['analyst'] };
const carol: TokenClaims = { tenant: 'acme', user: 'carol', roles: ['analyst'] };
const gina: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };

/** Resolves once the stream has ended (its frames read to the end), never throws. */
async function ended(stream: ListenStream): Promise<void> {
  try {
    for (;;) await stream.next();
  } catch {
    return;
  }
}

describe('listen stream caps (e2e)', () => {
  let gw: RunningGateway;
  const open: ListenStream[] = [];

  beforeAll(async () => {
    gw = await startGateway({ MCP_LISTEN_PER_TENANT: '12' });
  });
  afterAll(async () => {
    for (const stream of open) stream.close();
    await gw.close();
  });

  const mcp = () => `${gw.baseUrl}/mcp`;

  it('200 streams by one user: at most 8 stay open (the oldest end, with their response); another user and /healthz are served', async () => {
    const token = await mintToken(alice);
    const streams = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        openListen(mcp(), token, { toolsListChanged: true }, `a-${i}`),
      ),
    );
    open.push(...streams);
    expect(streams.every((s) => s.status === 200)).toBe(true);
    let over = 0;
    for (const stream of streams) void ended(stream).then(() => over++);
    await eventually(async () => expect(over).toBe(192), { timeoutMs: 10_000 });
    // an ended stream got the listen request's response, so its client knows to listen again
    const endedOne = streams.find((s) => s.frames.some((f) => 'result' in f));
    expect(endedOne).toBeDefined();

    const other = await openListen(mcp(), await mintToken(bob), { toolsListChanged: true }, 'b');
    open.push(other);
    expect(other.status).toBe(200);
    expect((await other.next()).method).toBe('notifications/subscriptions/acknowledged');
    expect((await fetch(`${gw.baseUrl}/healthz`)).status).toBe(200);
    // still exactly 8 of alice's: nothing else ended meanwhile
    expect(over).toBe(192);
  });

  it("a tenant past MCP_LISTEN_PER_TENANT is refused with 429 and RATE_LIMITED; another tenant's stream opens", async () => {
    // alice holds 8 and bob 1 from the test before: 3 more fill acme's 12
    const carolToken = await mintToken(carol);
    const three = await Promise.all(
      [0, 1, 2].map((i) => openListen(mcp(), carolToken, { toolsListChanged: true }, `c-${i}`)),
    );
    open.push(...three);
    expect(three.map((s) => s.status)).toEqual([200, 200, 200]);
    const refused = await fetch(mcp(), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await mintToken({ ...carol, user: 'dave' })}`,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'd-1',
        method: 'subscriptions/listen',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 'caps-test', version: '1' },
          },
          notifications: { toolsListChanged: true },
        },
      }),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    const body = (await refused.json()) as {
      id: string;
      error: { code: number; message: string; data: { limit: string } };
    };
    expect(body.id).toBe('d-1');
    expect(body.error.data.limit).toBe('listen_streams_per_tenant');
    expect(body.error.message).toMatch(/MCP_LISTEN_PER_TENANT/);

    const globex = await openListen(mcp(), await mintToken(gina), { toolsListChanged: true }, 'g');
    open.push(globex);
    expect(globex.status).toBe(200);
  });
});
