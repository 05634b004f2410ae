import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

/**
 * Rows for the model (issue 18, scope 1) and the call helpers (scope 5): the text a client
 * forwards to the model holds every row of a 100-row page of every demo report; REST offers
 * the same compact rows; provider tool calls run as they come from the provider.
 */
const admin: TokenClaims = {
  tenant: 'acme',
  user: 'root',
  roles: ['admin'],
  claims: { region: 'east' },
};
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };

const argsFor = (tool: string) =>
  tool === 'query_report_order_lookup' ? { order_id: 1, page_size: 100 } : { page_size: 100 };

interface Page {
  columns: Array<{ name: string }>;
  rows: Array<Record<string, unknown>>;
  has_more: boolean;
}

describe('rows for the model and tool-call helpers (e2e)', () => {
  let gw: RunningGateway;
  let tools: string[];

  beforeAll(async () => {
    gw = await startGateway();
    const res = await gw.request('/v1/tools?format=mcp', { as: admin });
    tools = ((await res.json()) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
  });
  afterAll(() => gw.close());

  it('MCP text carries every row of a 100-row page of every demo report', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${await mintToken(admin)}` } },
    });
    const client = new Client({ name: 'rows', version: '1' });
    await client.connect(transport);
    try {
      expect(tools).toHaveLength(11);
      let biggest = 0;
      for (const name of tools) {
        const result = await client.callTool({ name, arguments: argsFor(name) });
        expect(result.isError).toBeFalsy();
        const page = result.structuredContent as unknown as Page;
        const text = (result.content as Array<{ text: string }>)[0].text;
        const lines = text.split('\n');
        expect(lines[1]).toBe(`columns: ${JSON.stringify(page.columns.map((c) => c.name))}`);
        const rows = lines.slice(2).map((l) => JSON.parse(l) as unknown[]);
        // the whole page, in the column order, nothing cut
        expect(rows).toEqual(page.rows.map((r) => page.columns.map((c) => r[c.name] ?? null)));
        expect(text).not.toContain('cut');
        biggest = Math.max(biggest, page.rows.length);
      }
      expect(biggest).toBe(100);
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  it('REST ?encoding=compact returns the same rows as arrays in column order', async () => {
    for (const name of tools) {
      const call = (encoding: string) =>
        gw
          .request(`/v1/tools/${name}/call${encoding}`, {
            method: 'POST',
            as: admin,
            json: { arguments: argsFor(name) },
          })
          .then((r) => r.json() as Promise<{ result: Page & { encoding?: string } }>);
      const [objects, compact] = await Promise.all([call(''), call('?encoding=compact')]);
      expect(compact.result.encoding).toBe('compact');
      expect(compact.result.rows).toEqual(
        objects.result.rows.map((r) => objects.result.columns.map((c) => r[c.name] ?? null)),
      );
    }
  });

  it('the single-call route refuses arguments outside the wrapper with a 400 saying where they go', async () => {
    const res = await gw.request('/v1/tools/query_report_sales_by_region/call', {
      method: 'POST',
      as: alice,
      json: { region: 'east' },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        code: 'HTTP_400',
        message:
          'unknown top-level key "region": put the tool\'s arguments under "arguments", e.g. {"arguments":{"region":"east"}}',
      },
      trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  });

  it('takes arguments as a JSON string, and null for an optional filter as not given', async () => {
    const call = (body: unknown) =>
      gw
        .request('/v1/tools/query_report_sales_by_region/call', {
          method: 'POST',
          as: alice,
          json: body,
        })
        .then((r) => r.json() as Promise<{ is_error: boolean; result: Page; error?: unknown }>);
    const asString = await call({ arguments: '{"region":"east"}' });
    const asObject = await call({ arguments: { region: 'east' } });
    // each answer carries its own request's trace id (#16)
    expect({ ...asString, trace_id: undefined }).toEqual({ ...asObject, trace_id: undefined });
    expect(asString.result.rows).toHaveLength(1);
    const withNull = await call({ arguments: { region: null, order_date: null } });
    expect(withNull.is_error).toBe(false);
    expect(withNull.result.rows.length).toBe(4);
    expect(await call({ arguments: '{"region":' })).toEqual({
      tool: 'query_report_sales_by_region',
      is_error: true,
      error: {
        code: 'INVALID_ARGUMENTS',
        message: expect.stringContaining('arguments is a string that is not valid JSON'),
      },
      trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  });

  it('runs OpenAI tool_calls in parallel, each with its own outcome, and returns tool messages', async () => {
    const res = await gw.request('/v1/tool-calls', {
      method: 'POST',
      as: alice,
      json: {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_a',
            type: 'function',
            function: { name: 'query_report_sales_by_region', arguments: '{"region":"west"}' },
          },
          {
            id: 'call_b',
            type: 'function',
            function: { name: 'query_report_sales_by_region', arguments: '{"region":"e"}' },
          },
          {
            id: 'call_c',
            type: 'function',
            function: { name: 'query_report_revenue_by_month', arguments: '{}' },
          },
          {
            id: 'call_d',
            type: 'function',
            function: { name: 'query_report_low_stock', arguments: '{"warehouse":' },
          },
        ],
      },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      format: string;
      messages: Array<{ role: string; tool_call_id: string; content: string }>;
      results: Array<{ id: string; is_error: boolean; error?: { code: string } }>;
    };
    expect(body.format).toBe('openai');
    expect(body.messages.map((m) => [m.role, m.tool_call_id])).toEqual([
      ['tool', 'call_a'],
      ['tool', 'call_b'],
      ['tool', 'call_c'],
      ['tool', 'call_d'],
    ]);
    expect(body.messages[0].content).toMatch(/^1 row\(s\)[^\n]*\ncolumns: \["region",/);
    expect(body.messages[1].content).toBe(
      'Error INVALID_ARGUMENTS: region must be one of east, west, north, south; got "e"',
    );
    // alice (analyst) may not use a finance report: the same answer as a missing tool
    expect(body.results[2]).toMatchObject({
      id: 'call_c',
      is_error: true,
      error: { code: 'TOOL_NOT_FOUND' },
    });
    expect(body.results[3]).toMatchObject({ is_error: true, error: { code: 'INVALID_ARGUMENTS' } });
  });

  it('runs Anthropic tool_use blocks and returns one user message of tool_result blocks', async () => {
    const res = await gw.request('/v1/tool-calls', {
      method: 'POST',
      as: alice,
      json: {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking it up.' },
          {
            type: 'tool_use',
            id: 'toolu_1',
            name: 'query_report_low_stock',
            input: { warehouse: null },
          },
          { type: 'tool_use', id: 'toolu_2', name: 'query_report_nope', input: {} },
        ],
      },
    });
    const body = (await res.json()) as {
      message: {
        role: string;
        content: Array<{ type: string; tool_use_id: string; is_error?: boolean; content: string }>;
      };
    };
    expect(body.message.role).toBe('user');
    expect(body.message.content.map((b) => [b.type, b.tool_use_id, b.is_error ?? false])).toEqual([
      ['tool_result', 'toolu_1', false],
      ['tool_result', 'toolu_2', true],
    ]);
    expect(body.message.content[1].content).toMatch(/^Error TOOL_NOT_FOUND: /);
  });

  it('a malformed batch is a 400 that says what to send', async () => {
    const res = await gw.request('/v1/tool-calls', {
      method: 'POST',
      as: alice,
      json: { calls: [] },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
      '{"tool_calls":[...]} (OpenAI Chat Completions)',
    );
  });

  it('a user of tenant globex cannot run a report only tenant acme has through /v1/tool-calls', async () => {
    const put = await gw.request('/v1/admin/reports/acme_only', {
      method: 'PUT',
      as: admin,
      json: {
        name: 'Acme only',
        description: 'Orders of acme',
        category: 'sales',
        sql_template: 'SELECT o.id AS order_id FROM orders o LIMIT 1',
        filters: [],
        fields: [{ name: 'order_id', type: 'integer' }],
      },
    });
    expect(put.status).toBe(201);
    const call = (who: TokenClaims) =>
      gw
        .request('/v1/tool-calls', {
          method: 'POST',
          as: who,
          json: {
            content: [{ type: 'tool_use', id: 'x', name: 'query_report_acme_only', input: {} }],
          },
        })
        .then(
          (r) =>
            r.json() as Promise<{
              results: Array<{ is_error: boolean; error?: { code: string } }>;
            }>,
        );
    expect((await call(alice)).results[0].is_error).toBe(false);
    const other = await call({ tenant: 'globex', user: 'gina', roles: ['admin'] });
    expect(other.results[0]).toMatchObject({ is_error: true, error: { code: 'TOOL_NOT_FOUND' } });
  });

  it('401 without a token on /v1/tool-calls', async () => {
    const res = await fetch(`${gw.baseUrl}/v1/tool-calls`, { method: 'POST' });
    expect(res.status).toBe(401);
  });
});
