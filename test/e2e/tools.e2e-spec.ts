import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const gina: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };
const fiona: TokenClaims = { tenant: 'acme', user: 'fiona', roles: ['finance'] };
const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const Q1_EAST = { region: 'east', order_date: { start: '2026-01-01', end: '2026-03-31' } };

interface CallBody {
  tool: string;
  is_error: boolean;
  result?: {
    columns: Array<{ name: string; type: string }>;
    rows: Array<Record<string, unknown>>;
    page: number;
    page_size: number;
    has_more: boolean;
  };
  error?: { code: string; message: string };
}

describe('REST tools API (e2e, real Postgres)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw.close();
  });

  async function toolNames(who: TokenClaims, query = ''): Promise<string[]> {
    const res = await gw.request(`/v1/tools${query}`, { as: who });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { tools: Array<{ function: { name: string } }> };
    return body.tools.map((t) => t.function.name);
  }

  async function call(
    who: TokenClaims,
    tool: string,
    args: unknown,
  ): Promise<{ status: number; body: CallBody }> {
    const res = await gw.request(`/v1/tools/${tool}/call`, {
      method: 'POST',
      as: who,
      json: { arguments: args },
    });
    return { status: res.status, body: (await res.json()) as CallBody };
  }

  /** The same question asked of the database directly, to check the gateway's numbers. */
  async function directTotal(
    schema: string,
    region: string,
  ): Promise<{ orders: number; total: number }> {
    const { rows } = await gw.database.handle.withSession((s) =>
      s.query(
        `SELECT count(*)::int AS orders, sum(total_amount) AS total FROM "${schema}".orders WHERE region = $1 AND order_date BETWEEN '2026-01-01' AND '2026-03-31'`,
        [region],
      ),
    );
    return { orders: rows[0].orders as number, total: rows[0].total as number };
  }

  it("lists an analyst's tools in OpenAI format, sorted, without finance reports", async () => {
    const names = await toolNames(alice, '?format=openai');
    expect(names).toContain('query_report_sales_by_region');
    expect(names).not.toContain('query_report_revenue_by_month');
    expect(names).toEqual([...names].sort());
  });

  it('serves the Anthropic format with input_schema', async () => {
    const res = await gw.request('/v1/tools?format=anthropic', { as: alice });
    const body = (await res.json()) as {
      tools: Array<{
        name: string;
        input_schema: { properties: Record<string, unknown>; additionalProperties: boolean };
      }>;
    };
    const tool = body.tools.find((t) => t.name === 'query_report_sales_by_region');
    expect(tool?.input_schema.additionalProperties).toBe(false);
    expect(Object.keys(tool?.input_schema.properties ?? {})).toEqual([
      'region',
      'order_date',
      'page',
      'page_size',
    ]);
  });

  it('refuses an unknown format with 400', async () => {
    const res = await gw.request('/v1/tools?format=cohere', { as: alice });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
      'openai, openai-responses, anthropic, gemini, mcp',
    );
  });

  it('keeps only the reports of a context when one is given', async () => {
    const all = await toolNames(alice);
    const inventory = await toolNames(alice, '?context=INVENTORY');
    expect(inventory).toEqual(['query_report_low_stock', 'query_report_product_catalog']);
    expect(inventory.every((n) => all.includes(n))).toBe(true);
  });

  it('runs the README call and returns acme rows for east in Q1 2026, equal to direct SQL', async () => {
    const { status, body } = await call(alice, 'query_report_sales_by_region', Q1_EAST);
    expect(status).toBe(200);
    expect(body.is_error).toBe(false);
    expect(body.result?.columns.map((c) => c.name)).toEqual([
      'region',
      'order_count',
      'total_amount',
    ]);
    expect(body.result?.rows).toHaveLength(1);
    const direct = await directTotal('tenant_acme', 'east');
    expect(body.result?.rows[0]).toEqual({
      region: 'east',
      order_count: direct.orders,
      total_amount: direct.total,
    });
    expect(body.result).toMatchObject({ page: 1, page_size: 20, has_more: false });
  });

  it("gives globex's token globex numbers for the same tool name", async () => {
    const acme = await call(alice, 'query_report_sales_by_region', Q1_EAST);
    const globex = await call(gina, 'query_report_sales_by_region', Q1_EAST);
    const direct = await directTotal('tenant_globex', 'east');
    expect(globex.body.result?.rows[0]).toEqual({
      region: 'east',
      order_count: direct.orders,
      total_amount: direct.total,
    });
    expect(globex.body.result?.rows[0].total_amount).not.toEqual(
      acme.body.result?.rows[0].total_amount,
    );
  });

  it('hides revenue_by_month from an analyst: 404 on call, the same as a tool that does not exist', async () => {
    const forbidden = await call(alice, 'query_report_revenue_by_month', {});
    const missing = await call(alice, 'query_report_no_such_report', {});
    expect(forbidden.status).toBe(404);
    expect(missing.status).toBe(404);
    // the same answer, apart from each request's own trace id
    expect({ ...forbidden.body, trace_id: 'x' }).toEqual(
      JSON.parse(
        JSON.stringify({ ...missing.body, trace_id: 'x' }).replace(
          'no_such_report',
          'revenue_by_month',
        ),
      ),
    );
  });

  it('lets finance call revenue_by_month and an admin see every report', async () => {
    const { body } = await call(fiona, 'query_report_revenue_by_month', { year: 2025 });
    expect(body.is_error).toBe(false);
    expect(body.result?.rows).toHaveLength(12);
    const adminTools = await toolNames(root);
    expect(adminTools).toEqual(
      expect.arrayContaining([
        'query_report_revenue_by_month',
        'query_report_sales_by_region',
        'query_report_my_orders',
      ]),
    );
  });

  it('answers invalid arguments with is_error and a message naming the parameter', async () => {
    const badEnum = await call(alice, 'query_report_sales_by_region', { region: 'e' });
    expect(badEnum.status).toBe(200);
    expect(badEnum.body).toEqual({
      tool: 'query_report_sales_by_region',
      is_error: true,
      error: {
        code: 'INVALID_ARGUMENTS',
        message: 'region must be one of east, west, north, south; got "e"',
      },
      trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const badDate = await call(alice, 'query_report_sales_by_region', {
      order_date: { start: '2026-13-01' },
    });
    expect(badDate.body.error?.message).toBe(
      'order_date.start must be a date in YYYY-MM-DD format; got "2026-13-01"',
    );
    const extra = await call(alice, 'query_report_sales_by_region', { regoin: 'east' });
    expect(extra.body.error?.message).toContain('unknown argument "regoin"');
    const missing = await call(alice, 'query_report_order_lookup', {});
    expect(missing.body.error?.message).toBe('missing required argument "order_id"');
    const pageSize = await call(alice, 'query_report_top_customers', { page_size: 500 });
    expect(pageSize.body.error?.message).toBe('page_size must be <= 100; got 500');
  });

  it('pages results with has_more', async () => {
    const first = await call(alice, 'query_report_top_customers', { page_size: 5 });
    const second = await call(alice, 'query_report_top_customers', { page_size: 5, page: 2 });
    expect(first.body.result?.rows).toHaveLength(5);
    expect(first.body.result?.has_more).toBe(true);
    expect(second.body.result?.page).toBe(2);
    const ids = (r: CallBody) => r.result?.rows.map((row) => row.customer_id);
    expect(ids(second.body)).not.toEqual(ids(first.body));
  });

  it('returns 401 with a JSON error for no, invalid and expired tokens', async () => {
    const none = await gw.request('/v1/tools');
    const forged = await gw.request('/v1/tools', {
      as: { ...alice, secret: 'another-secret-that-is-long-enough-1234' },
    });
    const expired = await gw.request('/v1/tools', { as: { ...alice, expiresIn: '-1m' } });
    for (const res of [none, forged, expired]) {
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
        'UNAUTHENTICATED',
      );
    }
  });

  it('reports health and readiness, and serves the OpenAPI document', async () => {
    expect((await gw.request('/healthz')).status).toBe(200);
    expect(await (await gw.request('/readyz')).json()).toMatchObject({
      status: 'ready',
      database: 'up',
    });
    const doc = (await (await gw.request('/docs/json')).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/tools', '/v1/tools/{name}/call']),
    );
  });

  it('never answers a malformed body with a 500', async () => {
    const res = await gw.request('/v1/tools/query_report_sales_by_region/call', {
      method: 'POST',
      as: alice,
      headers: { 'content-type': 'application/json' },
      body: '{"arguments": ',
    });
    expect(res.status).toBe(400);
    const arrayArgs = await call(alice, 'query_report_sales_by_region', ['east']);
    expect(arrayArgs.body.error?.message).toBe('arguments must be a JSON object');
  });
});
