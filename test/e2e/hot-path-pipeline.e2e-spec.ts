import { Metrics } from '@app/registry';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpListHotPath } from '../../apps/gateway/src/mcp/session/mcp-list.hot-path';
import { McpSessions } from '../../apps/gateway/src/mcp/session/mcp-sessions.service';
import { RequestPipeline } from '../../apps/gateway/src/pipeline/request-pipeline';
import type { RequestContext } from '../../apps/gateway/src/pipeline/request-context';
import type { RequestPolicy } from '../../apps/gateway/src/pipeline/request-policy';
import { ToolListHotPath } from '../../apps/gateway/src/tools/tool-list.hot-path';
import { eventually } from '../support/eventually';
import { mintToken, startGateway } from '../support/gateway';
import { MCP_ACCEPT, MCP_INITIALIZE, MCP_TOOLS_LIST } from '../support/mcp';
import type { RunningGateway, TokenClaims } from '../support/gateway';

const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };

/**
 * The fast lane is part of the one request pipeline: a policy added to the pipeline applies
 * to a warm list it answers, and any fault in it leaves the request to the Nest route.
 */
describe('the fast lane inside the request pipeline (e2e)', () => {
  let gw: RunningGateway;
  let metrics: Metrics;
  const ended: Array<{ traceId: string; route: string; fastLane?: boolean }> = [];
  const hot = (route: 'GET /v1/tools' | 'POST /mcp') =>
    metrics.value('gateway_hot_path_responses_total', { route });

  /** A quota policy of the kind a team would add: marks every answer, refuses a spent quota. */
  const quota: RequestPolicy = {
    onRequest(_ctx: RequestContext, request: IncomingMessage, response: ServerResponse) {
      if (request.headers['x-test-quota'] === 'spent') {
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' });
        response.end('{"error":{"code":"RATE_LIMITED","message":"quota spent"}}');
        return true;
      }
      response.setHeader('x-test-policy', 'applied');
      return false;
    },
    onEnd(ctx: RequestContext) {
      ended.push({ traceId: ctx.traceId, route: ctx.route, fastLane: ctx.fastLane });
    },
  };

  beforeAll(async () => {
    gw = await startGateway();
    metrics = gw.app.get(Metrics);
    gw.app.get(RequestPipeline).use(quota);
  });
  afterAll(() => gw.close());
  afterEach(() => jest.restoreAllMocks());

  const list = async (token: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${gw.baseUrl}/v1/tools?format=anthropic`, {
      headers: { authorization: `Bearer ${token}`, ...headers },
    });
    return { status: res.status, headers: res.headers, body: await res.text() };
  };

  it('applies a policy added to the pipeline to a warm list answered by the fast lane', async () => {
    const token = await mintToken(alice);
    await list(token); // the regular route builds the list
    const before = hot('GET /v1/tools');
    const warm = await list(token);
    expect(hot('GET /v1/tools')).toBe(before + 1); // answered by the fast lane
    expect(warm.status).toBe(200);
    expect(warm.headers.get('x-test-policy')).toBe('applied');
    const traceId = warm.headers.get('x-trace-id');
    const record = await eventually(async () => {
      const found = ended.find((e) => e.traceId === traceId);
      if (!found) throw new Error('the policy has not seen the end of the request yet');
      return found;
    });
    expect(record).toEqual({ traceId, route: '/v1/tools', fastLane: true });

    const refused = await list(token, { 'x-test-quota': 'spent' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('7');
    expect(JSON.parse(refused.body).error.code).toBe('RATE_LIMITED');
    expect(hot('GET /v1/tools')).toBe(before + 1);
  });

  it('leaves the request to the Nest route when the fast lane throws', async () => {
    const token = await mintToken(alice);
    const regular = await list(token);
    await list(token);
    const before = hot('GET /v1/tools');
    jest.spyOn(gw.app.get(ToolListHotPath), 'answer').mockImplementation(() => {
      throw new Error('a fault in the fast lane');
    });
    const answered = await list(token);
    expect(hot('GET /v1/tools')).toBe(before); // not the fast lane: the route answered
    expect(answered.status).toBe(200);
    expect(answered.body).toBe(regular.body);
    expect(answered.headers.get('x-toolset-key')).toBe(regular.headers.get('x-toolset-key'));
  });

  it('leaves the request to the Nest route when an answer fails while being written', async () => {
    const token = await mintToken(alice);
    const regular = await list(token);
    const before = hot('GET /v1/tools');
    jest.spyOn(gw.app.get(ToolListHotPath), 'answer').mockImplementation(() => ({
      get headers(): Record<string, string> {
        throw new Error('a fault while writing');
      },
      body: [Buffer.from('not this')],
    }));
    const answered = await list(token);
    expect(hot('GET /v1/tools')).toBe(before);
    expect(answered.status).toBe(200);
    expect(answered.body).toBe(regular.body);
    expect(answered.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it("mutates no session state in the MCP list lane's answer, only once it is sent", async () => {
    const token = await mintToken(alice);
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'mcp-protocol-version': '2025-06-18',
      ...MCP_ACCEPT,
    };
    const opened = await fetch(`${gw.baseUrl}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify(MCP_INITIALIZE),
    });
    await opened.text();
    const session = opened.headers.get('mcp-session-id') ?? '';
    const send = () =>
      fetch(`${gw.baseUrl}/mcp`, {
        method: 'POST',
        headers: { ...headers, 'mcp-session-id': session },
        body: JSON.stringify(MCP_TOOLS_LIST),
      }).then((res) => res.text());
    await send(); // the SDK lists once: the list is in memory
    const listed = jest.spyOn(gw.app.get(McpSessions), 'listed');
    const request = { headers: { ...headers, 'mcp-session-id': session }, query: {} };
    const answer = gw.app.get(McpListHotPath).answer({ ...request, body: MCP_TOOLS_LIST });
    expect(answer?.body.length).toBeGreaterThan(0);
    expect(listed).not.toHaveBeenCalled(); // an answer never sent leaves no trace
    answer?.sent?.();
    expect(listed).toHaveBeenCalledTimes(1);
    const before = hot('POST /mcp');
    await send();
    expect(hot('POST /mcp')).toBe(before + 1);
    expect(listed).toHaveBeenCalledTimes(2); // the fast lane records it after sending
  });
});
