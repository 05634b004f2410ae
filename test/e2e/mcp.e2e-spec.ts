import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { sql } from 'kysely';
import { mintToken, startGateway } from '../support/gateway';
import { MCP_ACCEPT, MCP_INITIALIZE, MCP_TOOLS_LIST, watchStreams } from '../support/mcp';
import type { RunningGateway, TokenClaims } from '../support/gateway';

const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const fiona: TokenClaims = { tenant: 'acme', user: 'fiona', roles: ['finance'] };
const gina: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };

interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
  changes: number;
  /** resolves at the next list_changed */
  nextChange(): Promise<void>;
}

describe('MCP server over Streamable HTTP (e2e, SDK client)', () => {
  let gw: RunningGateway;
  const open: Connected[] = [];

  beforeAll(async () => {
    gw = await startGateway({ MCP_MAX_SESSIONS_PER_USER: '3', MCP_SESSION_IDLE_MS: '60000' });
  });
  afterEach(async () => {
    // end every session of the test (DELETE /mcp), freeing the per-user slots
    await Promise.all(
      open.splice(0).map(async (c) => {
        await c.transport.terminateSession().catch(() => undefined);
        await c.client.close().catch(() => undefined);
      }),
    );
  });
  afterAll(() => gw.close());

  async function connect(
    who: TokenClaims,
    options: { context?: string; query?: string } = {},
  ): Promise<Connected> {
    const headers: Record<string, string> = { authorization: `Bearer ${await mintToken(who)}` };
    if (options.context) headers['x-business-context'] = options.context;
    const streams = watchStreams();
    const transport = new StreamableHTTPClientTransport(
      new URL(`${gw.baseUrl}/mcp${options.query ?? ''}`),
      { requestInit: { headers }, fetch: streams.fetch },
    );
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    const waiters: Array<() => void> = [];
    const connected: Connected = {
      client,
      transport,
      changes: 0,
      nextChange: () => new Promise<void>((resolve) => waiters.push(resolve)),
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      connected.changes++;
      waiters.splice(0).forEach((w) => w());
    });
    await client.connect(transport);
    // list_changed travels on the notification stream the SDK opens after connect
    await streams.opened(1);
    open.push(connected);
    return connected;
  }

  async function restNames(who: TokenClaims, query = ''): Promise<string[]> {
    const res = await gw.request(`/v1/tools?format=mcp${query}`, { as: who });
    return ((await res.json()) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
  }

  it('lists the same tools as REST, with annotations and output schemas', async () => {
    const { client } = await connect(alice);
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(await restNames(alice));
    const sales = tools.find((t) => t.name === 'query_report_sales_by_region');
    expect(sales?.annotations?.readOnlyHint).toBe(true);
    expect(sales?.outputSchema?.required).toEqual([
      'columns',
      'rows',
      'page',
      'page_size',
      'has_more',
    ]);
    expect(Object.keys(sales?.inputSchema.properties ?? {})).toEqual([
      'region',
      'order_date',
      'page',
      'page_size',
    ]);
  });

  it('calls a report: structured rows plus a text summary, the same rows as REST', async () => {
    const { client } = await connect(alice);
    const args = { region: 'east', order_date: { start: '2026-01-01', end: '2026-03-31' } };
    const result = await client.callTool({ name: 'query_report_sales_by_region', arguments: args });
    const rest = (await (
      await gw.request('/v1/tools/query_report_sales_by_region/call', {
        method: 'POST',
        as: alice,
        json: { arguments: args },
      })
    ).json()) as { result: unknown };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(rest.result);
    expect((result.content as Array<{ type: string; text: string }>)[0].text).toMatch(
      /^1 row\(s\), result rows 1-1 \(page 1, page_size 20\); no more pages\.\ncolumns: \["region","order_count","total_amount"\]\n\["east",/,
    );
  });

  it('returns tool-level failures as isError with the same message as REST', async () => {
    const { client } = await connect(alice);
    const result = await client.callTool({
      name: 'query_report_sales_by_region',
      arguments: { region: 'e' },
    });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: 'text', text: 'region must be one of east, west, north, south; got "e"' },
    ]);
  });

  it('answers unknown and forbidden tools with the same JSON-RPC error', async () => {
    const { client } = await connect(alice);
    const forbidden = await client
      .callTool({ name: 'query_report_revenue_by_month', arguments: {} })
      .catch((e: Error) => e);
    const missing = await client
      .callTool({ name: 'query_report_nope', arguments: {} })
      .catch((e: Error) => e);
    expect(forbidden).toBeInstanceOf(Error);
    expect(missing).toBeInstanceOf(Error);
    expect((forbidden as Error).message.replace('revenue_by_month', 'X')).toBe(
      (missing as Error).message.replace('nope', 'X'),
    );
    expect((forbidden as Error).message).toContain('-32602');
    // the code once, not "MCP error -32602: MCP error -32602: ..."
    expect((missing as Error).message).toMatch(/^MCP error -32602: (?!MCP error)/);
  });

  it('scopes a session to the business context named at initialize (header or query)', async () => {
    const byHeader = await connect(alice, { context: 'INVENTORY' });
    expect((await byHeader.client.listTools()).tools.map((t) => t.name)).toEqual([
      'query_report_low_stock',
      'query_report_product_catalog',
    ]);
    const byQuery = await connect(alice, { query: '?context=INVENTORY' });
    expect((await byQuery.client.listTools()).tools.map((t) => t.name)).toEqual([
      'query_report_low_stock',
      'query_report_product_catalog',
    ]);
  });

  it('pushes list_changed to sessions whose set changed, and to nobody else', async () => {
    const analyst = await connect(alice);
    const finance = await connect(fiona);
    const globex = await connect(gina);
    for (const c of [analyst, finance, globex]) await c.client.listTools();

    // an acme sales report: only the analyst's set changes
    const analystNotified = analyst.nextChange();
    await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
              VALUES ('acme', 'mcp_new_sales', 'New', 'new sales report', 'SELECT count(*) AS n FROM orders', 'sales')`.execute(
      gw.database.handle.db,
    );
    await analystNotified;
    expect((await analyst.client.listTools()).tools.map((t) => t.name)).toContain(
      'query_report_mcp_new_sales',
    );

    // a finance report wakes the finance session; it was not woken before
    const financeNotified = finance.nextChange();
    await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
              VALUES ('acme', 'mcp_new_finance', 'New', 'new finance report', 'SELECT count(*) AS n FROM orders', 'finance')`.execute(
      gw.database.handle.db,
    );
    await financeNotified;
    expect(finance.changes).toBe(1);

    // globex heard about neither acme change: its first notification is its own tenant's
    const globexNotified = globex.nextChange();
    await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
              VALUES ('globex', 'mcp_new_globex', 'New', 'globex report', 'SELECT count(*) AS n FROM orders', 'sales')`.execute(
      gw.database.handle.db,
    );
    await globexNotified;
    expect(globex.changes).toBe(1);
    expect(analyst.changes).toBe(1);
  });

  it('coalesces a burst of changes into few notifications', async () => {
    const analyst = await connect(alice);
    await analyst.client.listTools();
    const notified = analyst.nextChange();
    await gw.database.handle.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 20; i++) {
        await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
                  VALUES ('acme', ${`burst_${i}`}, 'Burst', 'burst', 'SELECT 1 AS one FROM orders LIMIT 1', 'sales')`.execute(
          trx,
        );
      }
    });
    await notified;
    const { tools } = await analyst.client.listTools();
    expect(tools.filter((t) => t.name.startsWith('query_report_burst_'))).toHaveLength(20);
    expect(analyst.changes).toBe(1);
  });

  describe('sessions over raw HTTP', () => {
    const init = MCP_INITIALIZE;
    const headers = MCP_ACCEPT;

    async function initialize(who: TokenClaims): Promise<string> {
      const res = await gw.request('/mcp', { method: 'POST', as: who, headers, json: init });
      expect(res.status).toBe(200);
      return res.headers.get('mcp-session-id')!;
    }
    const listOn = (id: string, who: TokenClaims) =>
      gw.request('/mcp', {
        method: 'POST',
        as: who,
        headers: { ...headers, 'mcp-session-id': id },
        json: MCP_TOOLS_LIST,
      });

    it('refuses requests without a token (401) and from a non-allowed browser origin (403)', async () => {
      expect((await gw.request('/mcp', { method: 'POST', headers, json: init })).status).toBe(401);
      const evil = await gw.request('/mcp', {
        method: 'POST',
        as: alice,
        headers: { ...headers, origin: 'http://evil.example' },
        json: init,
      });
      expect(evil.status).toBe(403);
    });

    it("binds a session to its opener: another user's token on it is refused", async () => {
      const id = await initialize(fiona);
      expect((await listOn(id, fiona)).status).toBe(200);
      expect((await listOn(id, { ...fiona, user: 'mallory' })).status).toBe(403);
      expect((await listOn(id, { ...gina, user: 'fiona' })).status).toBe(403);
    });

    it('refuses an unknown context at initialize with the valid ones', async () => {
      const res = await gw.request('/mcp?context=NOPE', {
        method: 'POST',
        as: alice,
        headers,
        json: init,
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('valid contexts: FINANCE, INVENTORY, SALES');
    });

    it('at the per-user cap closes the least recently used session instead of refusing', async () => {
      const who: TokenClaims = { tenant: 'acme', user: 'capped', roles: ['analyst'] };
      const ids = [await initialize(who), await initialize(who), await initialize(who)];
      // the first is used again, so the second is now the least recently used
      expect((await listOn(ids[0], who)).status).toBe(200);
      const fourth = await initialize(who);
      expect((await listOn(ids[1], who)).status).toBe(404);
      for (const id of [ids[0], ids[2], fourth]) expect((await listOn(id, who)).status).toBe(200);
      // another user's sessions are never evicted for this one
      const other = await initialize(fiona);
      await initialize(who);
      expect((await listOn(other, fiona)).status).toBe(200);
    });

    it('ends a session on DELETE', async () => {
      const who: TokenClaims = { tenant: 'acme', user: 'deleter', roles: ['analyst'] };
      const id = await initialize(who);
      const deleted = await gw.request('/mcp', {
        method: 'DELETE',
        as: who,
        headers: { 'mcp-session-id': id },
      });
      expect(deleted.status).toBe(200);
      expect((await listOn(id, who)).status).toBe(404);
    });
  });
});
