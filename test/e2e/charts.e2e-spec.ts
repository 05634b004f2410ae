import { sql } from 'kysely';
import { changeCatalog, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

/**
 * Report results as charts for REST clients (#33): `?chart=vega-lite` (a spec with the rows
 * inline) and `?chart=svg` (drawn here, without a browser) on every demo report; a report's
 * chart hint is validated against its fields and hot-reloaded like the rest of the report.
 */
const admin: TokenClaims = {
  tenant: 'acme',
  user: 'root',
  roles: ['admin'],
  claims: { region: 'east' },
};

interface ChartAnswer {
  is_error: boolean;
  result?: { rows: unknown[] };
  chart?: {
    format: string;
    type?: string;
    spec?: Record<string, unknown>;
    svg?: string;
    error?: string;
  };
  error?: { code: string; message: string };
}

describe('report charts over REST (e2e, real Postgres)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  const call = async (tool: string, args: Record<string, unknown>, chart?: string) => {
    const res = await gw.request(`/v1/tools/${tool}/call${chart ? `?chart=${chart}` : ''}`, {
      method: 'POST',
      as: admin,
      json: { arguments: args },
    });
    return { status: res.status, body: (await res.json()) as ChartAnswer };
  };
  const reports = async () =>
    (
      (await (await gw.request('/v1/tools?format=openai', { as: admin })).json()) as {
        tools: Array<{ function: { name: string } }>;
      }
    ).tools
      .map((t) => t.function.name)
      .filter((n) => n.startsWith('query_report_'));

  it('answers a Vega-Lite spec and an SVG for every demo report', async () => {
    const names = await reports();
    expect(names.length).toBeGreaterThanOrEqual(11);
    for (const name of names) {
      const args = name === 'query_report_order_lookup' ? { order_id: 7 } : {};
      const vl = await call(name, args, 'vega-lite');
      expect(vl.status).toBe(200);
      expect(vl.body.is_error).toBe(false);
      expect(vl.body.chart?.format).toBe('vega-lite');
      const spec = vl.body.chart!.spec!;
      expect(spec.$schema).toBe('https://vega.github.io/schema/vega-lite/v6.json');
      expect((spec.data as { values: unknown[] }).values).toEqual(vl.body.result!.rows);
      const svg = await call(name, args, 'svg');
      expect(svg.body.is_error).toBe(false);
      expect(svg.body.chart?.error).toBeUndefined();
      expect(svg.body.chart?.svg).toMatch(/^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      expect(svg.body.chart?.type).toBe(vl.body.chart?.type);
    }
  }, 120_000);

  it('infers the chart: a line over months for revenue, bars for sales by region', async () => {
    const revenue = await call('query_report_revenue_by_month', {}, 'vega-lite');
    expect(revenue.body.chart?.type).toBe('line');
    const sales = await call('query_report_sales_by_region', {}, 'vega-lite');
    expect(sales.body.chart?.type).toBe('bar');
  });

  it('refuses an unknown chart format (400) and leaves calls without one unchanged', async () => {
    const bad = await gw.request('/v1/tools/query_report_sales_by_region/call?chart=png', {
      method: 'POST',
      as: admin,
      json: { arguments: {} },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toBe(
      'chart must be one of vega-lite, svg',
    );
    const plain = await call('query_report_sales_by_region', {});
    expect(plain.body).not.toHaveProperty('chart');
  });

  it('adds no chart to a tool error (the model reads the error as before)', async () => {
    const failed = await call('query_report_sales_by_region', { region: 'nowhere' }, 'svg');
    expect(failed.body.is_error).toBe(true);
    expect(failed.body).not.toHaveProperty('chart');
  });

  it('validates a chart hint through the admin API, naming the field, and hot-reloads it', async () => {
    const get = await gw.request('/v1/admin/reports/sales_by_region', { as: admin });
    const { report } = (await get.json()) as { report: Record<string, unknown> };
    const put = (chart: unknown) =>
      gw.request('/v1/admin/reports/sales_by_region', {
        method: 'PUT',
        as: admin,
        json: { ...report, chart },
      });
    const refused = await put({ type: 'bar', x: 'country', y: ['total_amount'] });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      'chart.x "country" is not an output field',
    );
    const pie = await put({ type: 'pie', x: 'region', y: ['total_amount'] });
    expect(pie.status).toBe(200);
    expect(((await pie.json()) as { report: { chart: unknown } }).report.chart).toEqual({
      type: 'pie',
      x: 'region',
      y: ['total_amount'],
    });
    expect((await call('query_report_sales_by_region', {}, 'vega-lite')).body.chart?.type).toBe(
      'pie',
    );
    // a hint changed by plain SQL is served at the new version too
    await changeCatalog(gw, 'acme', (db) =>
      sql`UPDATE gateway.reports SET chart = '{"type": "table"}' WHERE tenant_id = 'acme' AND id = 'sales_by_region'`.execute(
        db,
      ),
    );
    expect((await call('query_report_sales_by_region', {}, 'vega-lite')).body.chart?.type).toBe(
      'table',
    );
    // one that does not fit, by SQL: the report is not served, and says why
    await changeCatalog(gw, 'acme', (db) =>
      sql`UPDATE gateway.reports SET chart = '{"type": "bar", "x": "nope", "y": ["total_amount"]}' WHERE tenant_id = 'acme' AND id = 'sales_by_region'`.execute(
        db,
      ),
    );
    const status = (await (
      await gw.request('/v1/admin/reports/sales_by_region', { as: admin })
    ).json()) as { status: { served: boolean; problems?: Array<{ message: string }> } };
    expect(status.status.served).toBe(false);
    expect(status.status.problems?.map((p) => p.message).join('; ')).toContain(
      'chart.x "nope" is not an output field',
    );
    expect(await reports()).not.toContain('query_report_sales_by_region');
  });
});
