import { Metrics } from '@app/registry';
import { callTool, contained, listedTools } from '../support/containment';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { MCP_ACCEPT, MCP_INITIALIZE } from '../support/mcp';

const fiona: TokenClaims = { tenant: 'acme', user: 'fiona', roles: ['finance'] };
const author: TokenClaims = { tenant: 'acme', user: 'ada', roles: ['tool_author'] };
const groot: TokenClaims = { tenant: 'globex', user: 'groot', roles: ['admin'] };

/** `levels` nested arrays as JSON text, built without recursion (JSON.stringify would overflow). */
const deepJson = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

/**
 * Fault: arguments nested far deeper than any tool needs. They are refused where they enter
 * (REST, MCP, meta_tool's test arguments) as INVALID_ARGUMENTS, before any recursive code
 * (ajv, structuredClone, JSON.stringify into jsonb, a child's IPC channel) meets them.
 */
describe('faults: arguments nested 200,000 levels deep', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  const post = async (who: TokenClaims, path: string, body: string, headers = {}) =>
    fetch(`${gw.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${await mintToken(who)}`,
        ...headers,
      },
      body,
    });

  it('to a report tool over REST: INVALID_ARGUMENTS, and the tool still works for the next call', async () => {
    const res = await post(
      fiona,
      '/v1/tools/query_report_revenue_by_month/call',
      `{"arguments":{"year":${deepJson(200_000)}}}`,
    );
    const { status, text } = await contained(res);
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({
      is_error: true,
      error: { code: 'INVALID_ARGUMENTS', message: expect.stringMatching(/nested/) },
    });
    const next = await callTool(gw, fiona, 'query_report_revenue_by_month', { year: 2025 });
    expect(next.body).toMatchObject({ is_error: false });
    expect(await listedTools(gw, groot)).not.toHaveLength(0);
  });

  it('to a report tool on the call fast lane (a warm token and tool): the same INVALID_ARGUMENTS as the controller', async () => {
    const fast = () =>
      gw.app
        .get(Metrics)
        .value('gateway_hot_path_responses_total', { route: 'POST /v1/tools/:name/call' });
    // a token new to this instance; its first call warms the lane, the second is served by it
    const token = await mintToken({ ...fiona, user: 'fiona-fast-lane' });
    const call = async (body: string) => {
      const res = await fetch(`${gw.baseUrl}/v1/tools/query_report_revenue_by_month/call`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
      const { status, text } = await contained(res);
      expect(status).toBe(200);
      return JSON.parse(text) as Record<string, unknown>;
    };
    const ok = '{"arguments":{"year":2025}}';
    expect(await call(ok)).toMatchObject({ is_error: false });
    const before = fast();
    expect(await call(ok)).toMatchObject({ is_error: false });
    expect(fast()).toBe(before + 1); // the lane is warm for this caller and tool
    for (const levels of [33, 3_000, 200_000]) {
      const deep = await call(`{"arguments":{"year":${deepJson(levels)}}}`);
      expect(deep).toMatchObject({
        is_error: true,
        error: { code: 'INVALID_ARGUMENTS', message: expect.stringMatching(/nested more than 32/) },
      });
    }
    expect(fast()).toBe(before + 4); // each refusal came from the lane itself
    expect(await call(ok)).toMatchObject({ is_error: false });
  });

  it('to a report tool over MCP: a tool error the model can read, and the session lives on', async () => {
    const init = await fetch(`${gw.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        ...MCP_ACCEPT,
        'content-type': 'application/json',
        authorization: `Bearer ${await mintToken(fiona)}`,
      },
      body: JSON.stringify(MCP_INITIALIZE),
    });
    const session = init.headers.get('mcp-session-id')!;
    const headers = {
      ...MCP_ACCEPT,
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-06-18',
    };
    const deep = await post(
      fiona,
      '/mcp',
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"query_report_revenue_by_month","arguments":{"year":${deepJson(200_000)}}}}`,
      headers,
    );
    const { status, text } = await contained(deep);
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({
      id: 7,
      result: { isError: true, content: [{ text: expect.stringMatching(/nested/) }] },
    });
    const next = await post(
      fiona,
      '/mcp',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: { name: 'query_report_revenue_by_month', arguments: { year: 2025 } },
      }),
      headers,
    );
    const after = await contained(next);
    expect(JSON.parse(after.text)).toMatchObject({ id: 8, result: { structuredContent: {} } });
    expect(JSON.parse(after.text).result.isError).toBeFalsy();
  });

  it("in meta_tool's testArgs: INVALID_ARGUMENTS, and no proposal is stored", async () => {
    const res = await post(
      author,
      '/v1/tools/meta_tool/call',
      `{"arguments":{"name":"deep_args","code":"export default {}","testArgs":{"x":${deepJson(5_000)}}}}`,
    );
    const { status, text } = await contained(res);
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({
      is_error: true,
      error: { code: 'INVALID_ARGUMENTS' },
    });
    const { rows } = await gw.database.handle.withSession((s) =>
      s.query(`SELECT count(*)::int AS n FROM gateway.tool_proposals WHERE name = 'deep_args'`),
    );
    expect(rows[0].n).toBe(0);
  });
});
