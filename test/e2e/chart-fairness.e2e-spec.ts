import { sql } from 'kysely';
import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

/**
 * Issue 38, finding 5: the chart worker is shared fairly. Charts are drawn in turn between
 * tenants, a tenant holds at most CHARTS_PER_TENANT charts at once (more are refused at once,
 * the rows still come back), and a chart past CHART_TIMEOUT_MS fails alone.
 */
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const gina: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };
/**
 * The issue drew 16 charts of ~0.4 s each; this machine draws these in ~0.1 s, so the flood is
 * scaled to 32 to hold the same drawing time in front of globex (the property kept: another
 * tenant's flood does not hold up globex's chart past 2 s, nor get it refused).
 */
const ACME_CHARTS = 32;

interface ChartAnswer {
  is_error: boolean;
  result?: { rows: unknown[] };
  chart?: { format: string; svg?: string; error?: string };
}

describe('charts shared fairly between tenants (e2e)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway();
    // a hundred bars with long labels per page: a wide chart, slow to draw
    await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
              VALUES ('acme', 'wide_chart', 'Wide chart', 'every order as a bar',
                      ${"SELECT 'order ' || id || ' of customer ' || customer_id || ' ' || repeat('w', 400) AS label, total_amount FROM orders ORDER BY id"},
                      'sales')`.execute(gw.database.handle.db);
  });
  afterAll(() => gw.close());

  const chartCall = async (who: TokenClaims, tool: string, args: Record<string, unknown>) => {
    const started = performance.now();
    const res = await gw.request(`/v1/tools/${tool}/call?chart=svg`, {
      method: 'POST',
      as: who,
      json: { arguments: args },
    });
    const body = (await res.json()) as ChartAnswer;
    return { status: res.status, body, ms: performance.now() - started };
  };

  /** REST tool calls answered so far (counted when the rows are in, before any chart). */
  const restCallsOk = async () => {
    const text = await (await fetch(`${gw.baseUrl}/metrics`)).text();
    const line = /^gateway_tool_calls_total\{[^}]*protocol="rest"[^}]*code="ok"[^}]*\} (\d+)/m.exec(
      text,
    );
    return line ? Number(line[1]) : 0;
  };

  it("32 wide acme charts at once: globex's chart comes back within 2 s; every acme call returns its rows", async () => {
    // the worker is started and globex's chart path warm, as on a serving instance
    const warm = await chartCall(gina, 'query_report_sales_by_region', {});
    expect(warm.body.chart?.svg).toBeDefined();
    const before = await restCallsOk();
    const acme = Array.from({ length: ACME_CHARTS }, () =>
      chartCall(alice, 'query_report_wide_chart', { page_size: 100 }),
    );
    // globex asks once all of acme's calls have their rows (their charts drawing or waiting)
    await eventually(
      async () => expect(await restCallsOk()).toBeGreaterThanOrEqual(before + ACME_CHARTS),
      {
        timeoutMs: 10_000,
      },
    );
    const globex = await chartCall(gina, 'query_report_sales_by_region', {});
    expect(globex.status).toBe(200);
    expect(globex.body.chart?.svg).toMatch(/^<svg/);
    expect(globex.ms).toBeLessThanOrEqual(2000);

    const answers = await Promise.all(acme);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body.is_error).toBe(false);
      expect(answer.body.result!.rows).toHaveLength(100);
    }
    // four were drawn (CHARTS_PER_TENANT), the rest said why not
    const drawn = answers.filter((a) => a.body.chart?.svg !== undefined);
    const refused = answers.filter((a) => /CHARTS_PER_TENANT/.test(a.body.chart?.error ?? ''));
    expect(drawn.length).toBeGreaterThanOrEqual(1);
    expect(drawn.length + refused.length).toBe(ACME_CHARTS);
  }, 60_000);

  it('a chart past CHART_TIMEOUT_MS says so; its rows still come back', async () => {
    const slow = await startGateway({ CHART_TIMEOUT_MS: '150' }, gw.database);
    try {
      const request = (who: TokenClaims, tool: string, args: Record<string, unknown>) =>
        slow
          .request(`/v1/tools/${tool}/call?chart=svg`, {
            method: 'POST',
            as: who,
            json: { arguments: args },
          })
          .then(async (res) => (await res.json()) as ChartAnswer);
      // the first chart also waits for the worker to start (~0.3 s): past 150 ms
      const late = await request(alice, 'query_report_wide_chart', { page_size: 100 });
      expect(late.is_error).toBe(false);
      expect(late.result!.rows).toHaveLength(100);
      expect(late.chart?.error).toMatch(/could not be drawn within 0\.15 s \(CHART_TIMEOUT_MS\)/);
    } finally {
      await slow.close();
    }
  });
});
