import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { sql } from 'kysely';
import { eventually } from '../support/eventually';
import { mintToken, startGateway } from '../support/gateway';
import { openListen } from '../support/mcp-modern';
import type { RunningGateway, TokenClaims } from '../support/gateway';

/**
 * The HTTP-side findings of the hardening issue (#28): a body is never read before its token
 * is verified, slow or idle clients are cut off, bad report documents are a 4xx naming the
 * field, an empty JSON body is no body, discovery URLs ignore the Host header, local browser
 * origins may use /mcp and a rebinding Host may not.
 */
const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };

/** What a raw HTTP exchange came to: the status line (if any) and whether the server closed. */
interface RawExchange {
  status?: number;
  text: string;
  closedByServer: boolean;
}

/** Sends `head` (and then `body`, if any) on a fresh socket; resolves when the server closes. */
function rawExchange(port: number, head: string, body?: Buffer): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // the server closing while we still write is what the test expects of a refusal
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    socket.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      resolve({ status: status ? Number(status) : undefined, text, closedByServer: true });
    });
    socket.write(head);
    if (body) socket.write(body);
  });
}

const portOf = (gw: RunningGateway) => Number(new URL(gw.baseUrl).port);

describe('HTTP hardening (e2e, real Postgres)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway({ HTTP_REQUEST_TIMEOUT_MS: '1500', HTTP_HEADERS_TIMEOUT_MS: '1000' });
  });
  afterAll(() => gw.close());

  describe('a body is refused before it is read', () => {
    it('answers a POST without a token 401 and closes, though its 1 MB body never finished', async () => {
      const head =
        'POST /v1/tools/query_report_sales_by_region/call HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        'Content-Type: application/json\r\nContent-Length: 1048576\r\n\r\n';
      // 64 KB of the promised megabyte: the answer must not wait for the rest
      const exchanges = await Promise.all(
        Array.from({ length: 20 }, () =>
          rawExchange(portOf(gw), head, Buffer.alloc(64 * 1024, 0x20)),
        ),
      );
      for (const exchange of exchanges) {
        expect(exchange.status).toBe(401);
        expect(exchange.text).toMatch(/\r\nconnection: close\r\n/i);
        expect(exchange.text).toMatch(/\r\nwww-authenticate: Bearer resource_metadata=/i);
        expect(exchange.text).toContain('"code":"UNAUTHENTICATED"');
      }
    });

    it('refuses a bad token the same way on /mcp, as a JSON-RPC error', async () => {
      const exchange = await rawExchange(
        portOf(gw),
        'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer nope\r\n' +
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
        Buffer.from('10\r\n{"jsonrpc":"2.0",\r\n'),
      );
      expect(exchange.status).toBe(401);
      expect(exchange.text).toContain('"jsonrpc":"2.0"');
      expect(exchange.text).toContain('error="invalid_token"');
    });

    it('still reads the body of a caller with a valid token (first request: not yet cached)', async () => {
      const token = await mintToken({
        tenant: 'acme',
        user: `fresh-${Date.now()}`,
        roles: ['analyst'],
      });
      const res = await fetch(`${gw.baseUrl}/v1/tools/query_report_sales_by_region/call`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ arguments: {} }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { is_error: boolean }).is_error).toBe(false);
    });

    it('lets /register (no token, OAuth client registration) send a small body, not a large one', async () => {
      const small = await fetch(`${gw.baseUrl}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'inspector', redirect_uris: ['http://localhost/cb'] }),
      });
      expect(small.status).toBe(400);
      expect(((await small.json()) as { error: string }).error).toBe('invalid_client_metadata');
      const big = await rawExchange(
        portOf(gw),
        'POST /register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
          'Content-Length: 1048576\r\n\r\n',
        Buffer.alloc(1024, 0x20),
      );
      expect(big.status).toBe(413);
    });

    it('cuts off a client with a valid token that sends its body too slowly (HTTP_REQUEST_TIMEOUT_MS)', async () => {
      const token = await mintToken(root);
      const started = Date.now();
      const exchange = await rawExchange(
        portOf(gw),
        `POST /v1/tools/select HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"messages":',
      );
      expect(exchange.status).toBe(408);
      // the request timeout (1.5 s here) plus Node's check interval (1 s), far below 325 s
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it('closes a connection that never finishes its headers (HTTP_HEADERS_TIMEOUT_MS)', async () => {
      const exchange = await rawExchange(
        portOf(gw),
        'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n',
      );
      expect(exchange.status).toBe(408);
    });
  });

  describe('report documents: a 422 naming the field, nothing saved', () => {
    const put = (id: string, body: unknown) =>
      gw.request(`/v1/admin/reports/${id}`, { method: 'PUT', as: root, json: body });
    const stored = async (id: string) =>
      (
        await sql<{
          n: number;
        }>`SELECT count(*)::int AS n FROM gateway.reports WHERE tenant_id = 'acme' AND id = ${id}`.execute(
          gw.database.handle.db,
        )
      ).rows[0].n;
    const document = (overrides: Record<string, unknown>) => ({
      name: 'Orders',
      description: 'Every order.',
      sql_template:
        'SELECT o.id AS order_id FROM orders o WHERE (:min_id IS NULL OR o.id >= :min_id)',
      category: 'sales',
      filters: [{ name: 'min_id', type: 'integer', required: false }],
      fields: [{ name: 'order_id', type: 'integer' }],
      ...overrides,
    });

    it.each([
      ['a NUL in the name', { name: 'Orders\u0000' }, 'name contains a NUL character'],
      [
        'a NUL in the description',
        { description: '\u0000' },
        'description contains a NUL character',
      ],
      [
        'two fields with one name',
        {
          fields: [
            { name: 'order_id', type: 'integer' },
            { name: 'order_id', type: 'string' },
          ],
        },
        'field "order_id" is declared twice',
      ],
      [
        'an object default for an integer filter',
        { filters: [{ name: 'min_id', type: 'integer', default: { a: 1 } }] },
        'filter "min_id" has a default its own type refuses',
      ],
      [
        'a default of 1e308 for an integer filter',
        { filters: [{ name: 'min_id', type: 'integer', default: 1e308 }] },
        'filter "min_id" has a default that is not an exact integer',
      ],
    ])('%s', async (_what, overrides, says) => {
      const res = await put('hardened_orders', document(overrides));
      expect(res.status).toBe(422);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('INVALID_REPORT');
      expect(body.error.message).toContain(says);
      expect(await stored('hardened_orders')).toBe(0);
    });
  });

  describe('a JSON content type with no body is no body', () => {
    it('accepts DELETE and POST routes that take no body when the client sends the header anyway', async () => {
      const token = await mintToken(root);
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const put = await gw.request('/v1/admin/reports/empty_body_demo', {
        method: 'PUT',
        as: root,
        json: {
          name: 'Empty body demo',
          description: 'A report to disable and delete.',
          sql_template: 'SELECT o.id AS order_id FROM orders o',
          category: 'sales',
          fields: [{ name: 'order_id', type: 'integer' }],
        },
      });
      expect(put.status).toBe(201);
      const disable = await fetch(`${gw.baseUrl}/v1/admin/reports/empty_body_demo/disable`, {
        method: 'POST',
        headers,
      });
      expect(disable.status).toBe(200);
      const removed = await fetch(`${gw.baseUrl}/v1/admin/reports/empty_body_demo`, {
        method: 'DELETE',
        headers,
      });
      expect(removed.status).toBe(204);
    });

    it('still refuses a route that needs a body, with its own message', async () => {
      const token = await mintToken(root);
      const res = await fetch(`${gw.baseUrl}/v1/admin/reports/needs_body`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('INVALID_REPORT');
    });
  });

  describe('discovery URLs come from the listening address, never from Host', () => {
    it('ignores a forged Host in the resource metadata and the 401 challenge', async () => {
      const forged = await rawExchange(
        portOf(gw),
        'GET /.well-known/oauth-protected-resource HTTP/1.1\r\nHost: evil.example.com\r\nConnection: close\r\n\r\n',
      );
      expect(forged.status).toBe(200);
      expect(forged.text).toContain(`"resource":"${gw.baseUrl}"`);
      expect(forged.text).not.toContain('evil.example.com');
      const challenge = await rawExchange(
        portOf(gw),
        'GET /v1/tools HTTP/1.1\r\nHost: evil.example.com\r\nConnection: close\r\n\r\n',
      );
      expect(challenge.status).toBe(401);
      expect(challenge.text).toContain(
        `resource_metadata="${gw.baseUrl}/.well-known/oauth-protected-resource"`,
      );
      expect(challenge.text).not.toContain('evil.example.com');
    });
  });

  describe('/mcp from a browser: local origins pass, rebinding does not', () => {
    const initialize = async (host: string, origin: string) => {
      const token = await mintToken({ tenant: 'acme', user: 'alice', roles: ['analyst'] });
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        },
      });
      return rawExchange(
        portOf(gw),
        `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${origin}\r\nAuthorization: Bearer ${token}\r\n` +
          'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n' +
          `Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    };

    it('accepts localhost, 127.0.0.1 and [::1] origins on any port', async () => {
      const port = portOf(gw);
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`])
        expect((await initialize(host, `http://${host}`)).status).toBe(200);
    });

    it('refuses a foreign origin, and a local origin whose Host is foreign (DNS rebinding)', async () => {
      const port = portOf(gw);
      const foreign = await initialize(
        `evil.example.com:${port}`,
        `http://evil.example.com:${port}`,
      );
      expect(foreign.status).toBe(403);
      expect(foreign.text).toContain('origin http://evil.example.com');
      const rebound = await initialize(`evil.example.com:${port}`, `http://localhost:${port}`);
      expect(rebound.status).toBe(403);
      expect(rebound.text).toContain('host evil.example.com');
    });
  });
});

describe('HTTP connection cap (e2e)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway({ LIMIT_CONNECTIONS: '3', LIMIT_UNAUTHENTICATED_CONNECTIONS: '3' });
  });
  afterAll(() => gw.close());

  const held = (port: number, n: number) =>
    Promise.all(
      Array.from(
        { length: n },
        () =>
          new Promise<Socket>((resolve) => {
            const socket = connect(port, '127.0.0.1', () => resolve(socket));
            socket.on('error', () => undefined);
          }),
      ),
    );

  it('at LIMIT_CONNECTIONS a new connection evicts the oldest one still in its request head, and is served', async () => {
    const port = Number(new URL(gw.baseUrl).port);
    const idle = await held(port, 3);
    const oldestClosed = new Promise<void>((resolve) => idle[0].once('close', () => resolve()));
    const extra = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(extra.status).toBe(200);
    await oldestClosed;
    expect(idle[1].destroyed || idle[2].destroyed).toBe(false);
    for (const socket of idle) socket.destroy();
  });

  it('closes a new connection at once when every connection is serving a request', async () => {
    const port = Number(new URL(gw.baseUrl).port);
    const token = await mintToken(root);
    const streams = await Promise.all(
      [0, 1, 2].map((i) => openListen(`${gw.baseUrl}/mcp`, token, {}, `busy-${i}`)),
    );
    try {
      expect(streams.map((s) => s.status)).toEqual([200, 200, 200]);
      const extra = await rawExchange(port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      expect(extra.status).toBeUndefined();
      expect(extra.closedByServer).toBe(true);
    } finally {
      for (const stream of streams) stream.close();
    }
    // the server counts a closed connection when it sees the close: poll until it is admitted
    await eventually(async () => {
      const res = await fetch(`${gw.baseUrl}/healthz`);
      expect(res.status).toBe(200);
    });
  });
});
