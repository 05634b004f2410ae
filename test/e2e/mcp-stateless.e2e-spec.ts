import { sql } from 'kysely';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { MCP_ACCEPT, MCP_INITIALIZE } from '../support/mcp';
import { Metrics } from '@app/registry';
import { MODERN, MODERN_META, modernHeaders, modernPost, openListen } from '../support/mcp-modern';
import { createTestDatabase } from '../support/test-database';
import type { TestDatabase } from '../support/test-database';

/**
 * MCP revision 2026-07-28 on /mcp next to the 2025 sessions (issue 29): stateless requests any
 * replica answers, server/discover, cacheable lists, the transport's error rules (every error
 * echoes the request id), and subscriptions/listen fed by the catalog's change propagation.
 */
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const SUB = 'io.modelcontextprotocol/subscriptionId';

describe('/mcp revision 2026-07-28, stateless (e2e)', () => {
  let db: TestDatabase;
  let a: RunningGateway;
  let b: RunningGateway;
  let token: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    a = await startGateway({ MCP_LIST_TTL_MS: '12345' }, db);
    b = await startGateway({ MCP_LIST_TTL_MS: '12345' }, db);
    token = await mintToken(alice);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await db.drop();
  });

  const mcp = (gw: RunningGateway) => `${gw.baseUrl}/mcp`;

  it('server/discover declares tools, the chart View resource (and the Tasks extension) only, both eras, and who the server is; no session', async () => {
    const res = await modernPost(
      mcp(a),
      token,
      'server/discover',
      { _meta: MODERN_META },
      { id: 'd1' },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.body.id).toBe('d1');
    const result = res.body.result!;
    expect(result.resultType).toBe('complete');
    expect(result.capabilities).toEqual({
      tools: { listChanged: true },
      resources: {},
      extensions: { 'io.modelcontextprotocol/tasks': {} },
    });
    expect(result.supportedVersions).toEqual(expect.arrayContaining([MODERN, '2025-11-25']));
    expect(
      (result._meta as Record<string, { name: string }>)['io.modelcontextprotocol/serverInfo'].name,
    ).toBe('report-tool-gateway');
    expect(result.cacheScope).toBe('private');
  });

  it('resources/read gives the chart View report tools declare, with caching hints; another uri is -32602 with it', async () => {
    const listed = await modernPost(
      mcp(a),
      token,
      'resources/list',
      { _meta: MODERN_META },
      { id: 'r1' },
    );
    const [view] = (listed.body.result as { resources: Array<{ uri: string }> }).resources;
    expect(view.uri).toBe('ui://report-tool-gateway/chart-view-v1.html');
    const read = await modernPost(
      mcp(b),
      token,
      'resources/read',
      { _meta: MODERN_META, uri: view.uri },
      { id: 'r2' },
    );
    const result = read.body.result as {
      contents: Array<{ mimeType: string; text: string }>;
      ttlMs: number;
      cacheScope: string;
    };
    expect(result.contents[0].mimeType).toBe('text/html;profile=mcp-app');
    expect(result.contents[0].text).toMatch(/^<!doctype html>/);
    expect(result).toMatchObject({ cacheScope: 'public' });
    expect(result.ttlMs).toBeGreaterThanOrEqual(0);
    const unknown = await modernPost(
      mcp(a),
      token,
      'resources/read',
      { _meta: MODERN_META, uri: 'ui://other' },
      { id: 'r3' },
    );
    expect(unknown.body.id).toBe('r3');
    expect(unknown.body.error).toMatchObject({ code: -32602, data: { uri: 'ui://other' } });
  });

  it('tools/list on either replica: the same tools as a 2025 session, with ttlMs and a private scope', async () => {
    const fromA = await modernPost(mcp(a), token, 'tools/list', { _meta: MODERN_META }, { id: 7 });
    const fromB = await modernPost(mcp(b), token, 'tools/list', { _meta: MODERN_META }, { id: 8 });
    for (const res of [fromA, fromB]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('mcp-session-id')).toBeNull();
      expect(res.body.result).toMatchObject({
        ttlMs: 12345,
        cacheScope: 'private',
        resultType: 'complete',
      });
    }
    expect(fromB.body.id).toBe(8);
    expect(fromB.body.result!.tools).toEqual(fromA.body.result!.tools);

    const init = await a.request('/mcp', {
      method: 'POST',
      as: alice,
      headers: MCP_ACCEPT,
      json: MCP_INITIALIZE,
    });
    const session = init.headers.get('mcp-session-id')!;
    const legacy = await a.request('/mcp', {
      method: 'POST',
      as: alice,
      headers: { ...MCP_ACCEPT, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
      json: { jsonrpc: '2.0', id: 3, method: 'tools/list' },
    });
    const legacyTools = ((await legacy.json()) as { result: { tools: unknown[]; ttlMs?: number } })
      .result;
    expect(legacyTools.tools).toEqual(fromA.body.result!.tools);
    expect(legacyTools.ttlMs).toBeUndefined();
  });

  it('a warm tools/list is answered by the fast lane, byte for byte what the route answers', async () => {
    const hot = () =>
      a.app.get(Metrics).value('gateway_hot_path_responses_total', { route: 'POST /mcp' });
    const text = async (id: number) => {
      const res = await fetch(`${mcp(a)}?context=SALES`, {
        method: 'POST',
        headers: modernHeaders(token, 'tools/list', { _meta: MODERN_META }),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/list',
          params: { _meta: MODERN_META },
        }),
      });
      expect(res.status).toBe(200);
      return res.text();
    };
    // a context this test alone asks for: the first list is cold (the route builds it)
    const before = hot();
    const cold = await text(11);
    const warm = await text(11);
    expect(hot() - before).toBe(1);
    expect(warm).toBe(cold);
  });

  it('tools/call runs a report statelessly and says which server answered', async () => {
    const params = {
      _meta: MODERN_META,
      name: 'query_report_sales_by_region',
      arguments: { region: 'east' },
    };
    const res = await modernPost(mcp(b), token, 'tools/call', params, { id: 'c1' });
    expect(res.status).toBe(200);
    const result = res.body.result as {
      resultType: string;
      structuredContent: { rows: Array<{ region: string }> };
      _meta: Record<string, unknown>;
    };
    expect(result.resultType).toBe('complete');
    expect(result.structuredContent.rows.map((r) => r.region)).toEqual(['east']);
    expect(result._meta['io.modelcontextprotocol/serverInfo']).toBeDefined();
    expect(result._meta.trace_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('an unknown tool is -32602 with the request id', async () => {
    const params = { _meta: MODERN_META, name: 'query_report_nope', arguments: {} };
    const res = await modernPost(mcp(a), token, 'tools/call', params, { id: 'u1' });
    expect(res.body.id).toBe('u1');
    expect(res.body.error!.code).toBe(-32602);
  });

  it.each([
    ['no _meta', {}],
    ['no protocol version', { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } }],
    ['no client capabilities', { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } }],
  ])('%s in _meta is 400 / -32602 with the request id', async (_case, params) => {
    const res = await modernPost(mcp(a), token, 'server/discover', params, { id: 101 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ id: 101, error: { code: -32602 } });
  });

  it('a request without clientInfo is served', async () => {
    const meta: Record<string, unknown> = { ...MODERN_META };
    delete meta['io.modelcontextprotocol/clientInfo'];
    const res = await modernPost(mcp(a), token, 'server/discover', { _meta: meta });
    expect(res.status).toBe(200);
  });

  it.each([
    'initialize',
    'ping',
    'logging/setLevel',
    'resources/subscribe',
    'prompts/list',
    'unknown/method',
  ])('a modern %s is 404 / -32601 with the request id', async (method) => {
    const res = await modernPost(mcp(a), token, method, { _meta: MODERN_META }, { id: 500 });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ id: 500, error: { code: -32601 } });
  });

  it('a revision it does not serve is 400 / -32022 listing the supported ones', async () => {
    const meta = { ...MODERN_META, 'io.modelcontextprotocol/protocolVersion': '1999-01-01' };
    const res = await modernPost(
      mcp(a),
      token,
      'server/discover',
      { _meta: meta },
      { id: 301, headers: { 'mcp-protocol-version': '1999-01-01' } },
    );
    expect(res.status).toBe(400);
    expect(res.body.id).toBe(301);
    expect(res.body.error!.code).toBe(-32022);
    expect(res.body.error!.data).toMatchObject({
      requested: '1999-01-01',
      supported: expect.arrayContaining([MODERN]),
    });
  });

  describe('Mcp-Method / Mcp-Name against the body: 400 / -32020 with the request id', () => {
    const call = { _meta: MODERN_META, name: 'query_report_sales_by_region', arguments: {} };
    it.each([
      ['a different Mcp-Method', 'tools/list', { 'mcp-method': 'prompts/list' }],
      ['no Mcp-Method', 'tools/list', { 'mcp-method': undefined }],
      ['a different Mcp-Name', 'tools/call', { 'mcp-name': 'query_report_other' }],
      ['no Mcp-Name on tools/call', 'tools/call', { 'mcp-name': undefined }],
      ['a method header in another case', 'tools/list', { 'mcp-method': 'TOOLS/LIST' }],
      [
        'a protocol version header unlike _meta',
        'tools/list',
        { 'mcp-protocol-version': '2025-11-25' },
      ],
    ])('%s', async (_case, method, headers) => {
      const params = method === 'tools/call' ? call : { _meta: MODERN_META };
      const res = await modernPost(mcp(a), token, method, params, { id: 'h1', headers });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ id: 'h1', error: { code: -32020 } });
    });

    it('accepts a base64-encoded Mcp-Name', async () => {
      const encoded = `=?base64?${Buffer.from(call.name).toString('base64')}?=`;
      const res = await modernPost(mcp(a), token, 'tools/call', call, {
        headers: { 'mcp-name': encoded },
      });
      expect(res.status).toBe(200);
      expect(res.body.result).toBeDefined();
    });
  });

  it('2025 traffic is unchanged: a request without a session is -32000 and echoes its id', async () => {
    const res = await a.request('/mcp', {
      method: 'POST',
      as: alice,
      headers: MCP_ACCEPT,
      json: { jsonrpc: '2.0', id: 44, method: 'tools/list' },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ id: 44, error: { code: -32000 } });
  });

  it('subscriptions/listen on B hears a report inserted by SQL (through A’s database), tagged; a stream that did not ask hears nothing', async () => {
    const tools = await openListen(mcp(b), token, { toolsListChanged: true }, 'sub-tools');
    const prompts = await openListen(mcp(b), token, { promptsListChanged: true }, 'sub-prompts');
    try {
      expect(tools.status).toBe(200);
      const ack = await tools.next();
      expect(ack).toMatchObject({
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { toolsListChanged: true }, _meta: { [SUB]: 'sub-tools' } },
      });
      const narrowAck = await prompts.next();
      // a tools-only server honours none of that filter: it says so in the acknowledgement
      expect(narrowAck).toMatchObject({
        params: { notifications: {}, _meta: { [SUB]: 'sub-prompts' } },
      });

      await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
                VALUES ('acme', 'listen_added', 'Listen', 'inserted by SQL', 'SELECT 1 AS one', 'sales')`.execute(
        db.handle.db,
      );
      const changed = await tools.next();
      expect(changed).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { [SUB]: 'sub-tools' } },
      });
      const listed = await modernPost(mcp(a), token, 'tools/list');
      expect((listed.body.result!.tools as Array<{ name: string }>).map((t) => t.name)).toContain(
        'query_report_listen_added',
      );
      // both streams were judged on the same change; only the one that asked was told
      expect(prompts.frames).toHaveLength(1);
    } finally {
      tools.close();
      prompts.close();
    }
  });
});
