import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { MCP_ACCEPT, MCP_INITIALIZE } from '../support/mcp';

/**
 * /mcp protocol exactness (issue 18, scope 8): every error is a JSON-RPC error object with the
 * code the specification gives, and DELETE ends a session whatever its content type (the
 * official Python SDK's close sequence, replayed byte for byte in its headers).
 */
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };

describe('/mcp JSON-RPC exactness (e2e)', () => {
  let gw: RunningGateway;
  let auth: Record<string, string>;

  beforeAll(async () => {
    gw = await startGateway();
    auth = { authorization: `Bearer ${await mintToken(alice)}` };
  });
  afterAll(() => gw.close());

  const post = (body: string, headers: Record<string, string> = {}, query = '') =>
    fetch(`${gw.baseUrl}/mcp${query}`, {
      method: 'POST',
      headers: { ...auth, ...MCP_ACCEPT, 'content-type': 'application/json', ...headers },
      body,
    });

  async function open(): Promise<string> {
    const res = await post(JSON.stringify(MCP_INITIALIZE));
    expect(res.status).toBe(200);
    const id = res.headers.get('mcp-session-id')!;
    await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), {
      'mcp-session-id': id,
      'mcp-protocol-version': '2025-06-18',
    });
    return id;
  }

  async function rpcError(res: Response) {
    const body = (await res.json()) as {
      jsonrpc: string;
      error: { code: number; message: string };
    };
    expect(body.jsonrpc).toBe('2.0');
    return body.error;
  }

  it('a body that is not JSON, and an empty POST, are -32700 parse errors', async () => {
    for (const body of ['{"jsonrpc":', '']) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect((await rpcError(res)).code).toBe(-32700);
    }
  });

  it('tools/call without params is -32602, not an internal error', async () => {
    const id = await open();
    const res = await post(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call' }), {
      'mcp-session-id': id,
      'mcp-protocol-version': '2025-06-18',
    });
    const body = (await res.json()) as { id: number; error: { code: number; message: string } };
    expect(body.id).toBe(5);
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).not.toMatch(/MCP error -32602: MCP error/);
  });

  it('an unknown method is -32601', async () => {
    const id = await open();
    const res = await post(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'resources/nope' }), {
      'mcp-session-id': id,
      'mcp-protocol-version': '2025-06-18',
    });
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32601);
  });

  it('a message that is not JSON-RPC is -32600', async () => {
    const res = await post(JSON.stringify({ hello: 'world' }));
    expect((await rpcError(res)).code).toBe(-32600);
  });

  it('an unknown ?context= is a JSON-RPC error listing the valid contexts', async () => {
    const res = await post(JSON.stringify(MCP_INITIALIZE), {}, '?context=NOPE');
    expect(res.status).toBe(400);
    const error = await rpcError(res);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('valid contexts: ');
  });

  it("the Python SDK's close (DELETE with Content-Type: application/json, no body) ends the session", async () => {
    const id = await open();
    const del = await fetch(`${gw.baseUrl}/mcp`, {
      method: 'DELETE',
      headers: {
        ...auth,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-session-id': id,
        'mcp-protocol-version': '2025-06-18',
      },
    });
    expect(del.status).toBe(200);
    const after = await post(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }), {
      'mcp-session-id': id,
      'mcp-protocol-version': '2025-06-18',
    });
    expect(after.status).toBe(404);
    expect((await rpcError(after)).code).toBe(-32001);
  });

  it('a 401 on /mcp is a JSON-RPC error with the bearer challenge', async () => {
    const res = await fetch(`${gw.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...MCP_ACCEPT, 'content-type': 'application/json' },
      body: JSON.stringify(MCP_INITIALIZE),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
    expect((await rpcError(res)).message).toContain('missing bearer token');
  });
});
