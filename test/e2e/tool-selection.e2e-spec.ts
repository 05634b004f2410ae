import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { DEMO_REPORTS } from '@app/db';
import type { DB } from '@app/db';
import { Metrics } from '@app/registry';
import { changeCatalog, mintToken, startGateway } from '../support/gateway';
import { watchStreams } from '../support/mcp';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { createTestDatabase } from '../support/test-database';
import type { TestDatabase } from '../support/test-database';

const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const fiona: TokenClaims = { tenant: 'acme', user: 'fiona', roles: ['finance'] };
const rita: TokenClaims = {
  tenant: 'acme',
  user: 'rita',
  roles: ['sales_rep'],
  claims: { region: 'east' },
};
const gina: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };
const gadmin: TokenClaims = { tenant: 'globex', user: 'groot', roles: ['admin'] };

interface SelectBody {
  contexts: Array<{ name: string; score: number }>;
  ranking: Array<{ name: string; score: number; matched: string[] }>;
  tools: Array<{ type?: string; function?: { name: string }; name?: string }>;
}

/** A report with a word nobody else uses, in acme's SALES context, granted to analysts. */
async function addPenguinReport(db: Kysely<DB>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category, synonyms)
      VALUES ('acme', 'penguin_sightings', 'Penguin sightings', 'How many penguins were counted per region.',
        'SELECT o.region, count(*) AS n FROM orders o GROUP BY o.region', 'zoology', ARRAY['flightless birds'])`.execute(
      trx,
    );
    await sql`INSERT INTO gateway.context_members (tenant_id, context, report_id) VALUES ('acme', 'SALES', 'penguin_sightings')`.execute(
      trx,
    );
    await sql`INSERT INTO gateway.role_grants (tenant_id, role, report_id) VALUES ('acme', 'analyst', 'penguin_sightings')`.execute(
      trx,
    );
  });
}

const ask = (text: string) => ({ messages: [{ role: 'user', content: text }] });

describe('tool selection: POST /v1/tools/select (e2e, real Postgres)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  async function select(
    who: TokenClaims,
    body: unknown,
  ): Promise<{ status: number; body: SelectBody }> {
    const res = await gw.request('/v1/tools/select', { method: 'POST', as: who, json: body });
    return { status: res.status, body: (await res.json()) as SelectBody };
  }

  async function listNames(who: TokenClaims): Promise<string[]> {
    const res = await gw.request('/v1/tools', { as: who });
    return ((await res.json()) as { tools: Array<{ function: { name: string } }> }).tools.map(
      (t) => t.function.name,
    );
  }

  it('ranks the caller’s tools for a question, with the detected context and the matched words', async () => {
    const { status, body } = await select(alice, ask('What were sales per region in the east?'));
    expect(status).toBe(200);
    expect(body.ranking[0].name).toBe('query_report_sales_by_region');
    expect(body.ranking[0].matched).toEqual(expect.arrayContaining(['region']));
    expect(body.contexts[0].name).toBe('SALES');
    expect(body.tools[0]).toMatchObject({
      type: 'function',
      function: { name: 'query_report_sales_by_region' },
    });
    expect(body.tools.length).toBe(body.ranking.length);
  });

  it('answers the same conversation the same way, and reads the Anthropic shape', async () => {
    const openai = await select(alice, ask('low stock in the warehouse'));
    const again = await select(alice, ask('low stock in the warehouse'));
    expect(again.body).toEqual(openai.body);
    const anthropic = await select(alice, {
      messages: [{ role: 'user', content: [{ type: 'text', text: 'low stock in the warehouse' }] }],
      format: 'anthropic',
      limit: 2,
    });
    expect(anthropic.body.ranking).toEqual(openai.body.ranking.slice(0, 2));
    expect(anthropic.body.tools[0]).toEqual(
      expect.objectContaining({ name: 'query_report_low_stock' }),
    );
  });

  it('never returns a tool the caller may not use, for any role', async () => {
    const question = ask(
      'revenue by month and average order value per region, my orders, sales in my region, low stock',
    );
    for (const who of [alice, fiona, rita, gina]) {
      const visible = new Set(await listNames(who));
      const { body } = await select(who, { ...question, limit: 50 });
      expect(body.ranking.length).toBeGreaterThan(0);
      for (const t of body.ranking) expect(visible.has(t.name)).toBe(true);
    }
    // finance-only reports stay out of an analyst's answer even when asked for by name
    const { body } = await select(alice, ask('revenue by month'));
    expect(body.ranking.map((t) => t.name)).not.toContain('query_report_revenue_by_month');
  });

  it('a hot-added report is selectable as soon as it is listed, and only in its own tenant', async () => {
    await changeCatalog(gw, 'acme', addPenguinReport);
    expect(await listNames(alice)).toContain('query_report_penguin_sightings');
    const { body } = await select(alice, ask('how many penguins did we see?'));
    expect(body.ranking[0]).toMatchObject({ name: 'query_report_penguin_sightings' });
    const byAuthorWords = await select(alice, ask('flightless birds'));
    expect(byAuthorWords.body.ranking[0].name).toBe('query_report_penguin_sightings');
    // another tenant, even its admin, never sees it
    for (const who of [gina, gadmin]) {
      const other = await select(who, { ...ask('how many penguins did we see?'), limit: 50 });
      expect(other.body.ranking.map((t) => t.name)).not.toContain('query_report_penguin_sightings');
    }
    // and a role without the grant in the same tenant does not either
    const finance = await select(fiona, { ...ask('penguins'), limit: 50 });
    expect(finance.body.ranking.map((t) => t.name)).not.toContain('query_report_penguin_sightings');
  });

  it('refuses bad requests with a coded 400 and names the problem', async () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{}, 'INVALID_SELECT_REQUEST', /messages must be a non-empty array/],
      [{ messages: 'hi' }, 'INVALID_SELECT_REQUEST', /messages must be a non-empty array/],
      [{ messages: [{ content: 'x' }] }, 'INVALID_SELECT_REQUEST', /messages\[0\]/],
      [
        { messages: [{ role: 'assistant', content: 'x' }] },
        'INVALID_SELECT_REQUEST',
        /no user turn/,
      ],
      [{ ...ask('x'), limit: 0 }, 'INVALID_SELECT_REQUEST', /limit must be an integer/],
      [{ ...ask('x'), format: 'xml' }, 'INVALID_SELECT_REQUEST', /format must be one of/],
      [{ ...ask('x'), extra: 1 }, 'INVALID_SELECT_REQUEST', /unknown field/],
      [{ ...ask('x'), context: 'NOPE' }, 'UNKNOWN_CONTEXT', /valid contexts/],
    ];
    for (const [body, code, message] of cases) {
      const res = await gw.request('/v1/tools/select', { method: 'POST', as: alice, json: body });
      expect(res.status).toBe(400);
      const error = ((await res.json()) as { error: { code: string; message: string } }).error;
      expect(error.code).toBe(code);
      expect(error.message).toMatch(message);
    }
    const anonymous = await gw.request('/v1/tools/select', { method: 'POST', json: ask('x') });
    expect(anonymous.status).toBe(401);
  });

  it('keeps to a requested context', async () => {
    const { body } = await select(alice, {
      ...ask('products and stock'),
      context: 'INVENTORY',
      limit: 50,
    });
    expect(body.ranking.length).toBeGreaterThan(0);
    for (const t of body.ranking)
      expect(['query_report_product_catalog', 'query_report_low_stock']).toContain(t.name);
  });

  it('below TOOLS_INLINE_MAX lists are unchanged and the built-ins do not exist', async () => {
    const names = await listNames(alice);
    expect(names).not.toContain('search_tools');
    const res = await gw.request('/v1/tools/search_tools/call', {
      method: 'POST',
      as: alice,
      json: { arguments: { query: 'sales' } },
    });
    expect(res.status).toBe(404);
  });
});

describe('progressive disclosure past TOOLS_INLINE_MAX (e2e, REST and MCP)', () => {
  let db: TestDatabase;
  let gw: RunningGateway;
  const clients: Client[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    // analysts see 7 tools of acme: past a threshold of 5
    gw = await startGateway({ TOOLS_INLINE_MAX: '5', TOOLS_INLINE_COUNT: '2' }, db);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  });
  afterAll(async () => {
    await gw.close();
    await db.drop();
  });

  async function callTool(who: TokenClaims, name: string, args: unknown) {
    const res = await gw.request(`/v1/tools/${name}/call`, {
      method: 'POST',
      as: who,
      json: { arguments: args },
    });
    // the shapes differ per tool; each test reads the fields it checks
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  it('REST lists carry the built-ins and a few tools inline; the warm fast lane serves the same bytes', async () => {
    // one token for both requests: the fast lane answers tokens this instance verified
    const headers = { authorization: `Bearer ${await mintToken(alice)}` };
    const first = await gw.request('/v1/tools', { headers });
    const text = await first.text();
    const names = (JSON.parse(text) as { tools: Array<{ function: { name: string } }> }).tools.map(
      (t) => t.function.name,
    );
    expect(names.slice(0, 3)).toEqual(['search_tools', 'describe_tools', 'call_tool']);
    expect(names).toHaveLength(5);
    const metrics = gw.app.get(Metrics);
    const served = () =>
      metrics.value('gateway_hot_path_responses_total', { route: 'GET /v1/tools' });
    const before = served();
    const second = await gw.request('/v1/tools', { headers });
    expect(await second.text()).toBe(text);
    expect(served()).toBe(before + 1);
  });

  it('search_tools, describe_tools and call_tool work within the caller’s own set only', async () => {
    const found = await callTool(alice, 'search_tools', { query: 'sales per region' });
    expect(found.status).toBe(200);
    const hits = found.body.result.tools as Array<{
      name: string;
      title: string;
      description: string;
    }>;
    expect(hits[0]).toMatchObject({
      name: 'query_report_sales_by_region',
      // the title is the report's own name
      title: DEMO_REPORTS.find((r) => r.id === 'sales_by_region')?.name,
    });
    const finance = await callTool(alice, 'search_tools', { query: 'revenue by month', limit: 25 });
    expect((finance.body.result.tools as Array<{ name: string }>).map((t) => t.name)).not.toContain(
      'query_report_revenue_by_month',
    );

    const described = await callTool(alice, 'describe_tools', {
      names: ['query_report_sales_by_region', 'query_report_revenue_by_month', 'nope'],
    });
    expect(described.body.result.tools.map((t: { name: string }) => t.name)).toEqual([
      'query_report_sales_by_region',
    ]);
    expect(described.body.result.unknown).toEqual(['query_report_revenue_by_month', 'nope']);

    const called = await callTool(alice, 'call_tool', {
      name: 'query_report_sales_by_region',
      arguments: { region: 'east' },
    });
    expect(called.body).toMatchObject({ tool: 'query_report_sales_by_region', is_error: false });
    expect(called.body.result.rows[0]).toMatchObject({ region: 'east' });

    // a forbidden and an unknown tool read the same through call_tool
    const forbidden = await callTool(alice, 'call_tool', { name: 'query_report_revenue_by_month' });
    const unknown = await callTool(alice, 'call_tool', { name: 'query_report_nope' });
    expect(forbidden.body.is_error).toBe(true);
    expect(forbidden.body.error.message).toBe(
      unknown.body.error.message.replace('query_report_nope', 'query_report_revenue_by_month'),
    );
    const bad = await callTool(alice, 'search_tools', { limit: 3 });
    expect(bad.body).toMatchObject({ is_error: true, error: { code: 'INVALID_ARGUMENTS' } });
  });

  it('a user of tenant B cannot find, describe or call tenant A’s reports', async () => {
    const hits = await callTool(gina, 'search_tools', { query: 'sales by region', limit: 25 });
    for (const t of hits.body.result.tools as Array<{ name: string }>)
      expect(
        (await callTool(gina, 'describe_tools', { names: [t.name] })).body.result.tools,
      ).toHaveLength(1);
    await changeCatalog(gw, 'acme', addPenguinReport);
    const inA = await callTool(alice, 'search_tools', { query: 'penguins' });
    expect(inA.body.result.tools[0].name).toBe('query_report_penguin_sightings');
    const inB = await callTool(gina, 'search_tools', { query: 'penguins', limit: 25 });
    expect(inB.body.result.tools.map((t: { name: string }) => t.name)).not.toContain(
      'query_report_penguin_sightings',
    );
    const callB = await callTool(gina, 'call_tool', { name: 'query_report_penguin_sightings' });
    expect(callB.body.is_error).toBe(true);
  });

  it('MCP: a session that searched is told its list changed, and its next list holds what it found', async () => {
    const streams = watchStreams();
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${await mintToken(alice)}` } },
      fetch: streams.fetch,
    });
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    clients.push(client);
    let changed!: () => void;
    const listChanged = new Promise<void>((resolve) => (changed = resolve));
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => changed());
    await client.connect(transport);
    // list_changed travels on the notification stream the SDK opens after connect
    await streams.opened(1);

    const before = (await client.listTools()).tools.map((t) => t.name);
    expect(before.slice(0, 3)).toEqual(['search_tools', 'describe_tools', 'call_tool']);
    expect(before).not.toContain('query_report_product_catalog');
    const result = await client.callTool({
      name: 'search_tools',
      arguments: { query: 'product catalog prices', limit: 1 },
    });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { tools: Array<{ name: string }> }).tools[0].name).toBe(
      'query_report_product_catalog',
    );
    // over MCP too, a search never names a tool the caller may not use
    const forbidden = await client.callTool({
      name: 'search_tools',
      arguments: { query: 'revenue by month', limit: 25 },
    });
    expect(
      (forbidden.structuredContent as { tools: Array<{ name: string }> }).tools.map((t) => t.name),
    ).not.toContain('query_report_revenue_by_month');
    await listChanged;
    const after = (await client.listTools()).tools.map((t) => t.name);
    expect(after).not.toContain('query_report_revenue_by_month');
    expect(after).toContain('query_report_product_catalog');
    // found tools are callable by their own name, through the same permission checks
    const call = await client.callTool({ name: 'query_report_product_catalog', arguments: {} });
    expect(call.isError).toBeFalsy();
    // another session of the same user still has the short list
    const other = new Client({ name: 'e2e2', version: '1.0.0' });
    clients.push(other);
    await other.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${await mintToken(alice)}` } },
      }),
    );
    expect((await other.listTools()).tools.map((t) => t.name)).toEqual(before);
  });
});
