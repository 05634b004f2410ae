import { sql } from 'kysely';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

/**
 * Per-report usage for a tenant's admins (#33): every call is counted per tool, hour and how
 * the caller found it, in a table that holds counts only (never an argument or a row value),
 * is read only within the caller's tenant, and forgets hours past its retention.
 */
const admin: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'], claims: {} };
const analyst: TokenClaims = { tenant: 'acme', user: 'ana', roles: ['analyst'] };
const secondAdmin: TokenClaims = { tenant: 'acme', user: 'second', roles: ['admin'] };
const otherAdmin: TokenClaims = { tenant: 'globex', user: 'groot', roles: ['admin'] };

interface Usage {
  tool: string;
  enabled: boolean;
  summary: {
    calls: number;
    errors: number;
    error_rate: number | null;
    empty: number;
    p50_ms: number | null;
    p95_ms: number | null;
    found_via: { listed: number; selected: number; searched: number };
  };
  daily: { day: string; calls: number }[];
  chart: { format: string; svg?: string; error?: string };
}

describe('report usage (e2e, real Postgres)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway({ USAGE_FLUSH_MS: '3600000' });
  });
  afterAll(() => gw.close());

  const call = (tool: string, args: Record<string, unknown>, as: TokenClaims = admin) =>
    gw.request(`/v1/tools/${tool}/call`, { method: 'POST', as, json: { arguments: args } });
  const usage = async (tool: string, as: TokenClaims = admin, days = '7') => {
    const res = await gw.request(
      `/v1/admin/console/usage?tool=${encodeURIComponent(tool)}&days=${days}`,
      { as },
    );
    const body = (await res.json()) as Usage;
    return { status: res.status, body };
  };

  it('counts calls, errors and empty pages of a tool, with latency and a chart of the days', async () => {
    const tool = 'query_report_order_lookup';
    expect((await call(tool, { order_id: 7 })).status).toBe(200);
    const empty = (await (await call(tool, { order_id: 987654321 })).json()) as {
      result: { rows: unknown[] };
    };
    expect(empty.result.rows).toEqual([]);
    const bad = (await (await call(tool, { order_id: 'seven' })).json()) as { is_error: boolean };
    expect(bad.is_error).toBe(true);

    const { status, body } = await usage(tool);
    expect(status).toBe(200);
    expect(body.enabled).toBe(true);
    expect(body.summary).toMatchObject({ calls: 3, errors: 1, empty: 1 });
    expect(body.summary.error_rate).toBeCloseTo(1 / 3);
    expect(body.summary.p50_ms).toBeGreaterThan(0);
    expect(body.summary.p95_ms).toBeGreaterThanOrEqual(body.summary.p50_ms!);
    expect(body.summary.found_via).toEqual({ listed: 3, selected: 0, searched: 0 });
    expect(body.daily).toHaveLength(7);
    expect(body.daily[6].calls).toBe(3);
    expect(body.chart.svg).toMatch(/^<svg/);
  });

  it('the overview lists every report with its figures, a never-called one included (#39)', async () => {
    const report = (id: string) =>
      gw.request(`/v1/admin/reports/${id}`, {
        method: 'PUT',
        as: admin,
        json: {
          name: `Probe ${id}`,
          description: 'Orders of one id.',
          sql_template: 'SELECT o.id FROM orders o WHERE o.id = :order_id',
          category: 'sales',
          filters: [{ name: 'order_id', type: 'integer', required: true }],
          fields: [{ name: 'id', type: 'integer' }],
        },
      });
    expect((await report('overview_probe')).status).toBe(201);
    expect((await report('overview_never')).status).toBe(201);
    await call('query_report_overview_probe', { order_id: 7 });
    await call('query_report_overview_probe', { order_id: 987654321 });
    await call('query_report_overview_probe', { order_id: 'seven' });
    const res = await gw.request('/v1/admin/console/usage/overview?days=7', { as: admin });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      days: number;
      reports: Array<{ id: string; tool: string; calls: number } & Record<string, unknown>>;
    };
    expect(body.days).toBe(7);
    const probe = body.reports.find((r) => r.id === 'overview_probe');
    expect(probe).toMatchObject({
      tool: 'query_report_overview_probe',
      calls: 3,
      errors: 1,
      empty: 1,
    });
    expect(probe?.p95_ms).toEqual(expect.any(Number));
    expect(body.reports.find((r) => r.id === 'overview_never')).toMatchObject({
      calls: 0,
      errors: 0,
      error_rate: null,
      p50_ms: null,
    });
    // every report of the tenant, most called first
    const listed = (await (await gw.request('/v1/admin/reports', { as: admin })).json()) as {
      reports: Array<{ id: string }>;
    };
    expect(body.reports.map((r) => r.id).sort()).toEqual(listed.reports.map((r) => r.id).sort());
    const calls = body.reports.map((r) => r.calls);
    expect(calls).toEqual([...calls].sort((a, b) => b - a));
    // another tenant's admin sees its own reports only; an analyst is refused; days bounded
    const other = (await (
      await gw.request('/v1/admin/console/usage/overview', { as: otherAdmin })
    ).json()) as { reports: Array<{ id: string }> };
    expect(other.reports.map((r) => r.id)).not.toContain('overview_probe');
    expect((await gw.request('/v1/admin/console/usage/overview', { as: analyst })).status).toBe(
      403,
    );
    expect(
      (await gw.request('/v1/admin/console/usage/overview?days=0', { as: admin })).status,
    ).toBe(400);
  });

  it('tells a call after a select answer from a call off the list, per caller', async () => {
    const res = await gw.request('/v1/tools/select', {
      method: 'POST',
      as: admin,
      json: { messages: [{ role: 'user', content: 'revenue by region' }], limit: 1 },
    });
    const [first] = ((await res.json()) as { ranking: { name: string }[] }).ranking;
    expect(first.name).toMatch(/^query_report_/);
    await call(first.name, {});
    // another user of the tenant who did not ask select found it on the list
    await call(first.name, {}, secondAdmin);
    const { body } = await usage(first.name);
    expect(body.summary.found_via.selected).toBe(1);
    expect(body.summary.found_via.listed).toBe(1);
  });

  it('holds counts only: no argument or row value reaches the table', async () => {
    await call('query_report_order_lookup', { order_id: 424242 });
    await usage('query_report_order_lookup');
    const rows = await sql<Record<string, unknown>>`SELECT * FROM gateway.report_usage`.execute(
      gw.database.handle.db,
    );
    expect(rows.rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows.rows)).not.toContain('424242');
    for (const row of rows.rows)
      expect(Object.keys(row).sort()).toEqual(
        [
          'cached',
          'calls',
          'empty',
          'errors',
          'found_via',
          'hour',
          'latency_buckets',
          'latency_ms_sum',
          'tenant_id',
          'tool',
        ].sort(),
      );
  });

  it("never shows another tenant's usage, and is for admins only", async () => {
    await call('query_report_order_lookup', { order_id: 7 });
    const other = await usage('query_report_order_lookup', otherAdmin);
    expect(other.status).toBe(200);
    expect(other.body.summary.calls).toBe(0);
    expect((await usage('query_report_order_lookup', analyst)).status).toBe(403);
  });

  it('refuses a missing or malformed tool and days out of range, with what to send', async () => {
    for (const [query, message] of [
      ['', /tool is required/],
      ['?tool=a%20b', /tool is required/],
      ['?tool=query_report_x&days=0', /days must be a whole number from 1 to 90/],
      ['?tool=query_report_x&days=abc', /days must be a whole number/],
    ] as const) {
      const res = await gw.request(`/v1/admin/console/usage${query}`, { as: admin });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(message);
    }
  });

  it('forgets hours past the retention when it next writes', async () => {
    const old = new Date(Date.now() - 40 * 24 * 3_600_000);
    old.setUTCMinutes(0, 0, 0);
    await sql`INSERT INTO gateway.report_usage
      (tenant_id, tool, hour, found_via, calls, errors, empty, latency_ms_sum, latency_buckets)
      VALUES ('acme', 'query_report_old', ${old.toISOString()}, 'listed', 5, 0, 0, 10,
              ${[5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]})`.execute(gw.database.handle.db);
    const fresh = await startGateway({ USAGE_RETENTION_DAYS: '30' }, gw.database);
    try {
      await (
        await fresh.request('/v1/tools/query_report_order_lookup/call', {
          method: 'POST',
          as: admin,
          json: { arguments: { order_id: 7 } },
        })
      ).json();
      await fresh.request('/v1/admin/console/usage?tool=query_report_order_lookup', { as: admin });
      const left = await sql<{ n: number }>`SELECT count(*)::int AS n FROM gateway.report_usage
        WHERE tool = 'query_report_old'`.execute(gw.database.handle.db);
      expect(left.rows[0].n).toBe(0);
    } finally {
      await fresh.close();
    }
  });
});
