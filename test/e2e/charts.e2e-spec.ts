import { sql } from 'kysely';
import { categoryLabels, drawnCategories, worstScaleRatio } from '../support/chart-audit';
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
      expect(Array.isArray((spec.data as { values: unknown[] }).values)).toBe(true);
      const svg = await call(name, args, 'svg');
      expect(svg.body.is_error).toBe(false);
      expect(svg.body.chart?.error).toBeUndefined();
      expect(svg.body.chart?.svg).toMatch(/^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      expect(svg.body.chart?.type).toBe(vl.body.chart?.type);
    }
  }, 120_000);

  it("draws every demo report as an analyst would keep it: scales that fit, the rows' order, level short labels", async () => {
    for (const name of await reports()) {
      const id = name.replace('query_report_', '');
      const args = id === 'order_lookup' ? { order_id: 7 } : {};
      const { body } = await call(name, args, 'vega-lite');
      const spec = body.chart!.spec!;
      // no two measures whose largest values differ by more than 10x share one scale
      expect(worstScaleRatio(spec)).toBeLessThanOrEqual(10);
      const doc = (await (await gw.request(`/v1/admin/reports/${id}`, { as: admin })).json()) as {
        report: { chart?: { type: string; x?: string; series?: string } };
      };
      const x = doc.report.chart?.x;
      if (!x || doc.report.chart?.type === 'table') continue;
      const rows = body.result!.rows as Array<Record<string, unknown>>;
      const categories = [...new Set(rows.map((r) => String(r[x])))];
      if (
        rows.length === 0 ||
        typeof rows[0][x] !== 'string' ||
        /^\d{4}-\d{2}-\d{2}/.test(String(rows[0][x]))
      )
        continue;
      // the rows' order; past 12 categories the first 11 (ranked rows) and the rest as "other"
      const folded =
        categories.length > 12 && !doc.report.chart?.series
          ? [...categories.slice(0, 11), `other (${categories.length - 11})`]
          : categories;
      for (const drawn of drawnCategories(spec))
        expect({ id, drawn }).toEqual({ id, drawn: folded });
      const fit = folded.length <= 12 && folded.every((c) => c.length <= 10);
      for (const axis of categoryLabels(spec))
        if (fit) expect({ id, angle: axis.angle }).toEqual({ id, angle: 0 });
    }
  }, 120_000);

  it('draws top_customers, the ranked demo report, as bars in its ranking', async () => {
    const { body } = await call('query_report_top_customers', { page_size: 8 }, 'vega-lite');
    expect(body.chart?.type).toBe('bar');
    const rows = body.result!.rows as Array<{ customer_name: string; total_spent: number }>;
    const spent = rows.map((r) => Number(r.total_spent));
    expect(spent).toEqual([...spent].sort((a, b) => b - a));
    expect(drawnCategories(body.chart!.spec!)).toEqual([rows.map((r) => r.customer_name)]);
  });

  it('draws a report whose field names hold a backslash, a quote and brackets', async () => {
    const put = await gw.request('/v1/admin/reports/odd_names', {
      method: 'PUT',
      as: admin,
      json: {
        name: 'Odd names',
        description: 'Field names that mean something in Vega expressions',
        category: 'sales',
        sql_template:
          'SELECT o.region AS "r\\", count(*) AS "a""b", sum(o.total_amount) AS "c[0]" FROM orders o GROUP BY 1 ORDER BY 2 DESC',
        fields: [
          // no description: the name itself, ending in a backslash, is the title
          { name: 'r\\', type: 'string' },
          { name: 'a"b', type: 'integer' },
          { name: 'c[0]', type: 'number' },
        ],
        chart: { type: 'bar', x: 'r\\', y: ['a"b', 'c[0]'], format: { 'c[0]': 'currency' } },
      },
    });
    expect(put.status).toBe(201);
    const drawn = await call('query_report_odd_names', {}, 'svg');
    expect(drawn.body.chart?.error).toBeUndefined();
    expect(drawn.body.chart?.svg).toMatch(/^<svg/);
    const refused = await gw.request('/v1/admin/reports/odd_names', {
      method: 'PUT',
      as: admin,
      json: {
        ...(
          (await (await gw.request('/v1/admin/reports/odd_names', { as: admin })).json()) as {
            report: Record<string, unknown>;
          }
        ).report,
        chart: { type: 'bar', x: 'r\\', y: ['a"b'], format: { 'r\\': 'currency' } },
      },
    });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      'chart.format["r\\\\"]: "r\\" is string, and only numeric fields take a format',
    );
  });

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
