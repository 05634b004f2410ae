import { Metrics } from '@app/registry';
import { sql } from 'kysely';
import { changeCatalog, mintToken, startGateway } from '../support/gateway';
import { MCP_ACCEPT, MCP_INITIALIZE, MCP_TOOLS_LIST } from '../support/mcp';
import type { RunningGateway, TokenClaims } from '../support/gateway';

const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const gina: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };

/**
 * Warm lists (REST) and tools/list in an open MCP session are answered before Nest's
 * pipeline and the MCP SDK. These tests check that such answers are the regular route's
 * answers byte for byte, and that everything the hot path is not sure of still reaches
 * the regular route, refusals included.
 */
describe('hot paths for warm tool lists (e2e)', () => {
  let gw: RunningGateway;
  let metrics: Metrics;
  const hot = (route: 'GET /v1/tools' | 'POST /mcp') =>
    metrics.value('gateway_hot_path_responses_total', { route });

  beforeAll(async () => {
    gw = await startGateway();
    metrics = gw.app.get(Metrics);
  });
  afterAll(() => gw.close());

  async function list(token: string, query = '', headers: Record<string, string> = {}) {
    const res = await fetch(`${gw.baseUrl}/v1/tools${query}`, {
      headers: { authorization: `Bearer ${token}`, ...headers },
    });
    return {
      status: res.status,
      body: await res.text(),
      type: res.headers.get('content-type'),
      key: res.headers.get('x-toolset-key'),
    };
  }

  describe('GET /v1/tools', () => {
    it('answers a repeated request from memory with the bytes and headers of the regular route', async () => {
      const token = await mintToken(alice);
      const before = hot('GET /v1/tools');
      const first = await list(token, '?format=anthropic');
      expect(hot('GET /v1/tools')).toBe(before); // first request: the regular route built it
      const second = await list(token, '?format=anthropic');
      expect(hot('GET /v1/tools')).toBe(before + 1);
      expect(second).toEqual(first);
      expect(first.status).toBe(200);
      expect(first.type).toBe('application/json; charset=utf-8');
    });

    it('answers If-None-Match with a 304 and no body on both lanes, and a 200 once the catalog changed', async () => {
      const token = await mintToken(alice);
      const headersOf = async (init: Record<string, string> = {}) => {
        const res = await fetch(`${gw.baseUrl}/v1/tools?format=openai`, {
          headers: { authorization: `Bearer ${token}`, ...init },
        });
        return { status: res.status, etag: res.headers.get('etag'), body: await res.text(), res };
      };
      const fresh = await headersOf(); // may be built by the route (cold) or the lane
      expect(fresh.status).toBe(200);
      expect(fresh.res.headers.get('cache-control')).toBe('private, no-cache');
      expect(fresh.etag).toBe(`"${fresh.res.headers.get('x-toolset-key')};openai"`);
      const before = hot('GET /v1/tools');
      const again = await headersOf({ 'if-none-match': fresh.etag! });
      expect(again.status).toBe(304);
      expect(again.body).toBe('');
      expect(again.etag).toBe(fresh.etag);
      expect(hot('GET /v1/tools')).toBe(before + 1); // the fast lane answered it
      // another format is another entity
      const anthropic = await fetch(`${gw.baseUrl}/v1/tools?format=anthropic`, {
        headers: { authorization: `Bearer ${token}`, 'if-none-match': fresh.etag! },
      });
      expect(anthropic.status).toBe(200);
      // the route (a cold tenant catalog) answers the same way: a catalog change is a new ETag
      await changeCatalog(gw, 'acme', (db) =>
        sql`UPDATE gateway.reports SET description = description || ' ' WHERE tenant_id = 'acme' AND id = 'sales_by_region'`.execute(
          db,
        ),
      );
      const changed = await headersOf({ 'if-none-match': fresh.etag! });
      expect(changed.status).toBe(200);
      expect(changed.etag).not.toBe(fresh.etag);
      const routeAgain = await headersOf({ 'if-none-match': changed.etag! });
      expect(routeAgain.status).toBe(304);
    });

    it('leaves refusals to the regular route: bad token, bad format, unknown context', async () => {
      const token = await mintToken(alice);
      await list(token); // warm: this user's list is in memory
      const before = hot('GET /v1/tools');
      const forged = await list(`${token.slice(0, -2)}xx`);
      expect(forged.status).toBe(401);
      const format = await list(token, '?format=cohere');
      expect(format.status).toBe(400);
      expect(JSON.parse(format.body).error.message).toContain('format must be one of');
      const context = await list(token, '?context=NOPE');
      expect(context.status).toBe(400);
      expect(JSON.parse(context.body).error.message).toContain('unknown business context "NOPE"');
      const twice = await list(token, '?context=SALES&context=FINANCE');
      expect(twice.status).toBe(400);
      const twoFormats = await list(token, '?format=openai&format=mcp');
      expect(twoFormats.status).toBe(400);
      // only the exact route is answered early; Fastify routes the rest as before
      const slash = await fetch(`${gw.baseUrl}/v1/tools/`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(slash.status).toBe(404);
      const head = await fetch(`${gw.baseUrl}/v1/tools`, {
        method: 'HEAD',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(head.status).toBe(200);
      expect(hot('GET /v1/tools')).toBe(before);
    });

    it('serves each tenant and context its own list', async () => {
      const aliceToken = await mintToken(alice);
      const ginaToken = await mintToken(gina);
      for (let i = 0; i < 2; i++) {
        const acme = await list(aliceToken);
        const globex = await list(ginaToken);
        const sales = await list(aliceToken, '', { 'x-business-context': 'INVENTORY' });
        expect(acme.key?.startsWith('acme:')).toBe(true);
        expect(globex.key?.startsWith('globex:')).toBe(true);
        expect(sales.key).not.toBe(acme.key);
        expect(sales.key?.endsWith(':INVENTORY')).toBe(true);
      }
      // the same token with another tenant's context name is refused, warm or not
      await sql`INSERT INTO gateway.business_contexts (tenant_id, name) VALUES ('globex', 'GLOBEX_ONLY')`.execute(
        gw.database.handle.db,
      );
      expect((await list(aliceToken, '?context=GLOBEX_ONLY')).status).toBe(400);
    });

    it('never serves a list older than the catalog: a change is listed on the next request', async () => {
      const token = await mintToken(alice);
      await list(token);
      await list(token);
      await changeCatalog(gw, 'acme', (db) =>
        sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
            VALUES ('acme', 'hot_new', 'New', 'added while warm', 'SELECT count(*) AS n FROM orders', 'sales')`.execute(
          db,
        ),
      );
      const after = await list(token);
      expect(after.body).toContain('query_report_hot_new');
    });
  });

  describe('POST /mcp tools/list', () => {
    async function openSession(token: string): Promise<string> {
      const res = await fetch(`${gw.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          ...MCP_ACCEPT,
        },
        body: JSON.stringify(MCP_INITIALIZE),
      });
      expect(res.status).toBe(200);
      const id = res.headers.get('mcp-session-id');
      if (!id) throw new Error('no session id');
      await res.text();
      return id;
    }

    async function rpc(
      token: string,
      session: string,
      body: unknown,
      headers: Record<string, string> = {},
    ) {
      const res = await fetch(`${gw.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-06-18',
          ...MCP_ACCEPT,
          ...headers,
        },
        body: JSON.stringify(body),
      });
      return {
        status: res.status,
        body: await res.text(),
        type: res.headers.get('content-type'),
        session: res.headers.get('mcp-session-id'),
      };
    }

    it("answers with the SDK's exact bytes and headers", async () => {
      const token = await mintToken(alice);
      const session = await openSession(token);
      const before = hot('POST /mcp');
      // a request with params goes through the SDK; the same request without params does not
      const viaSdk = await rpc(token, session, { ...MCP_TOOLS_LIST, params: { cursor: 'c' } });
      expect(hot('POST /mcp')).toBe(before);
      const viaHotPath = await rpc(token, session, MCP_TOOLS_LIST);
      expect(hot('POST /mcp')).toBe(before + 1);
      expect(viaHotPath).toEqual(viaSdk);
      expect(viaSdk.status).toBe(200);
      expect(viaSdk.session).toBe(session);
      const tools = (JSON.parse(viaSdk.body) as { result: { tools: Array<{ name: string }> } })
        .result.tools;
      expect(tools.map((t) => t.name)).toContain('query_report_sales_by_region');
      // string ids are echoed as given
      const named = await rpc(token, session, { ...MCP_TOOLS_LIST, id: 'list-1' });
      expect(JSON.parse(named.body)).toEqual({ ...JSON.parse(viaSdk.body), id: 'list-1' });
    });

    it("leaves everything it is not sure of to the SDK and the controller's checks", async () => {
      const token = await mintToken(alice);
      const session = await openSession(token);
      await rpc(token, session, MCP_TOOLS_LIST); // warm
      const before = hot('POST /mcp');

      const otherUser = await rpc(
        await mintToken({ ...alice, user: 'mallory' }),
        session,
        MCP_TOOLS_LIST,
      );
      expect(otherUser.status).toBe(403);
      expect(otherUser.body).toContain('belongs to another user');
      const otherTenant = await rpc(
        await mintToken({ ...gina, user: 'alice' }),
        session,
        MCP_TOOLS_LIST,
      );
      expect(otherTenant.status).toBe(403);
      const unknown = await rpc(token, '00000000-0000-4000-8000-000000000000', MCP_TOOLS_LIST);
      expect(unknown.status).toBe(404);
      const accept = await rpc(token, session, MCP_TOOLS_LIST, { accept: 'application/json' });
      expect(accept.status).toBe(406);
      const version = await rpc(token, session, MCP_TOOLS_LIST, {
        'mcp-protocol-version': '1999-01-01',
      });
      expect(version.status).toBe(400);
      const origin = await rpc(token, session, MCP_TOOLS_LIST, { origin: 'https://evil.example' });
      expect(origin.status).toBe(403);
      const forged = await rpc(`${token.slice(0, -2)}xx`, session, MCP_TOOLS_LIST);
      expect(forged.status).toBe(401);
      // params the SDK would refuse are the SDK's to refuse
      const arrayParams = await rpc(token, session, { ...MCP_TOOLS_LIST, params: [] });
      expect(arrayParams.status).not.toBe(200);
      // a batch is the SDK's to answer
      const batch = await rpc(token, session, [MCP_TOOLS_LIST, { ...MCP_TOOLS_LIST, id: 3 }]);
      expect(batch.status).toBe(200);
      expect((JSON.parse(batch.body) as unknown[]).length).toBe(2);

      expect(hot('POST /mcp')).toBe(before);
    });

    it("keeps the session's list current and its list_changed baseline in step", async () => {
      const token = await mintToken(alice);
      const session = await openSession(token);
      await rpc(token, session, MCP_TOOLS_LIST);
      await changeCatalog(gw, 'acme', (db) =>
        sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
            VALUES ('acme', 'hot_mcp_new', 'New', 'added while warm', 'SELECT count(*) AS n FROM orders', 'sales')`.execute(
          db,
        ),
      );
      const names = async () =>
        (
          JSON.parse((await rpc(token, session, MCP_TOOLS_LIST)).body) as {
            result: { tools: Array<{ name: string }> };
          }
        ).result.tools.map((t) => t.name);
      expect(await names()).toContain('query_report_hot_mcp_new');
      const before = hot('POST /mcp');
      expect(await names()).toContain('query_report_hot_mcp_new');
      expect(hot('POST /mcp')).toBe(before + 1);
    });

    describe('tools/call of a report', () => {
      const call = (id: number | string, name: string, args: unknown, extra = {}) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name, arguments: args, ...extra },
      });
      /** the result without its trace id (each request has its own) */
      const resultOf = (body: string) => {
        const message = JSON.parse(body) as {
          id: unknown;
          result: { _meta?: { trace_id?: string } } & Record<string, unknown>;
        };
        expect(message.result._meta?.trace_id).toMatch(/^[0-9a-f]{32}$/);
        return { ...message, result: { ...message.result, _meta: undefined } };
      };

      it("answers what the SDK answers, rows and tool errors, with the SDK's headers", async () => {
        const token = await mintToken(alice);
        const session = await openSession(token);
        await rpc(token, session, MCP_TOOLS_LIST); // warm: token verified, catalog loaded
        for (const args of [{ order_id: 7 }, { order_id: 'seven' }, { tenant_id: 'globex' }]) {
          const before = hot('POST /mcp');
          // params with _meta go through the SDK; the same call without it does not
          const viaSdk = await rpc(
            token,
            session,
            call(5, 'query_report_order_lookup', args, { _meta: { progressToken: 1 } }),
          );
          expect(hot('POST /mcp')).toBe(before);
          const viaHotPath = await rpc(token, session, call(5, 'query_report_order_lookup', args));
          expect(hot('POST /mcp')).toBe(before + 1);
          expect(viaHotPath.status).toBe(200);
          expect(viaHotPath.type).toBe(viaSdk.type);
          expect(viaHotPath.session).toBe(session);
          expect(resultOf(viaHotPath.body)).toEqual(resultOf(viaSdk.body));
        }
        const named = await rpc(token, session, call('c-1', 'query_report_order_lookup', {}));
        expect((JSON.parse(named.body) as { id: unknown }).id).toBe('c-1');
      });

      it('leaves tools it cannot run from memory, and other owners, to the SDK', async () => {
        const token = await mintToken(alice);
        const session = await openSession(token);
        await rpc(token, session, MCP_TOOLS_LIST);
        const before = hot('POST /mcp');
        // a tool alice cannot see: the SDK path answers it as an unknown tool (invalid params)
        const hidden = await rpc(token, session, call(1, 'query_report_no_such_report', {}));
        expect(hidden.status).toBe(200);
        expect(JSON.parse(hidden.body)).toMatchObject({ id: 1, error: { code: -32602 } });
        // a built-in (not a report) and a body the SDK refuses
        await rpc(token, session, call(2, 'meta_tool', {}));
        const badArgs = await rpc(token, session, call(3, 'query_report_order_lookup', [1]));
        expect(badArgs.body).toContain('params.arguments must be an object');
        const otherUser = await rpc(
          await mintToken({ ...alice, user: 'mallory' }),
          session,
          call(4, 'query_report_order_lookup', { order_id: 7 }),
        );
        expect(otherUser.status).toBe(403);
        expect(hot('POST /mcp')).toBe(before);
      });
    });
  });
});
