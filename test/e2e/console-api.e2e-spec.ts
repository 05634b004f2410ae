import { sql } from 'kysely';
import { eventually } from '../support/eventually';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { callTool, decide, propose, toolSource } from '../support/meta-tool';

const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const groot: TokenClaims = { tenant: 'globex', user: 'groot', roles: ['admin'] };
const rex: TokenClaims = { tenant: 'acme', user: 'rex', roles: ['tool_reviewer'] };
const gus: TokenClaims = { tenant: 'globex', user: 'gus', roles: ['tool_reviewer'] };

const REPORT = {
  name: 'Big orders',
  description: 'Orders above an amount, newest first.',
  sql_template:
    'SELECT o.id AS order_id, o.total_amount FROM orders o WHERE o.total_amount >= :min_amount ORDER BY o.id DESC',
  category: 'sales',
  filters: [{ name: 'min_amount', type: 'number', required: true }],
  fields: [
    { name: 'order_id', type: 'integer' },
    { name: 'total_amount', type: 'number' },
  ],
};

interface Verdict {
  ok: boolean;
  exists: boolean;
  problems: Array<{ rule: string; message: string; part?: { text: string; start: number } }>;
  tool?: {
    name: string;
    description: string;
    contexts: string[];
    formats: Record<string, Record<string, unknown>>;
  };
}

describe('admin console API (e2e, real Postgres)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  const post = (who: TokenClaims, path: string, json: unknown) =>
    gw.request(path, { method: 'POST', as: who, json });
  const catalogVersion = async (tenant = 'acme') => {
    const { rows } = await sql<{
      v: string;
    }>`SELECT catalog_version::text AS v FROM gateway.tenants WHERE id = ${tenant}`.execute(
      gw.database.handle.db,
    );
    return rows[0].v;
  };

  describe('POST /v1/admin/reports/{id}/validate', () => {
    it('renders a valid document in every provider shape, with contexts, and writes nothing', async () => {
      const before = await catalogVersion();
      const res = await post(root, '/v1/admin/reports/console_dry/validate', REPORT);
      expect(res.status).toBe(200);
      const verdict = (await res.json()) as Verdict;
      expect(verdict).toMatchObject({ ok: true, exists: false, problems: [] });
      expect(verdict.tool?.name).toBe('query_report_console_dry');
      expect(verdict.tool?.contexts).toEqual(['SALES']);
      expect(verdict.tool?.description).toContain('Orders above an amount');
      expect(verdict.tool?.formats.openai).toMatchObject({
        type: 'function',
        function: { name: 'query_report_console_dry' },
      });
      expect(verdict.tool?.formats.anthropic).toMatchObject({
        name: 'query_report_console_dry',
        input_schema: { type: 'object' },
      });
      expect(verdict.tool?.formats.mcp).toMatchObject({
        name: 'query_report_console_dry',
        inputSchema: { type: 'object' },
      });
      expect(await catalogVersion()).toBe(before);
      expect((await gw.request('/v1/admin/reports/console_dry', { as: root })).status).toBe(404);
    });

    it("returns the guard's refusal with the offending part of the SQL", async () => {
      const res = await post(root, '/v1/admin/reports/console_bad/validate', {
        ...REPORT,
        sql_template: 'SELECT rolname FROM pg_roles WHERE :min_amount > 0',
      });
      expect(res.status).toBe(200);
      const verdict = (await res.json()) as Verdict;
      expect(verdict.ok).toBe(false);
      expect(verdict.tool).toBeUndefined();
      const problem = verdict.problems.find((p) => p.part);
      expect(problem?.part).toMatchObject({ text: 'pg_roles', start: 20 });
    });

    it('names shape problems (a missing field, an unknown filter type) without a 500', async () => {
      const res = await post(root, '/v1/admin/reports/console_shape/validate', {
        ...REPORT,
        name: undefined,
        filters: [{ name: 'min_amount', type: 'money' }],
      });
      expect(res.status).toBe(200);
      const verdict = (await res.json()) as Verdict;
      expect(verdict.ok).toBe(false);
      expect(verdict.problems.map((p) => p.message).join(' ')).toMatch(/name/);
      const junk = await post(root, '/v1/admin/reports/console_shape/validate', [
        'not',
        'a',
        'doc',
      ]);
      expect(junk.status).toBe(200);
      expect(((await junk.json()) as Verdict).ok).toBe(false);
    });

    it('refuses non-admins (403), missing tokens (401), and says an existing report exists', async () => {
      expect((await post(alice, '/v1/admin/reports/x/validate', REPORT)).status).toBe(403);
      const anonymous = await fetch(`${gw.baseUrl}/v1/admin/reports/x/validate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(REPORT),
      });
      expect(anonymous.status).toBe(401);
      const existing = await post(root, '/v1/admin/reports/sales_by_region/validate', REPORT);
      expect(((await existing.json()) as Verdict).exists).toBe(true);
      // globex's admin judging the same id learns about globex only
      const other = await post(groot, '/v1/admin/reports/console_dry/validate', REPORT);
      expect(((await other.json()) as Verdict).exists).toBe(false);
    });
  });

  describe('POST /v1/admin/reports/{id}/try', () => {
    it("runs the unsaved template read-only on the caller's tenant data: the first page", async () => {
      const body = { report: REPORT, arguments: { min_amount: 1000, page_size: 500 } };
      const acme = (await (await post(root, '/v1/admin/reports/console_try/try', body)).json()) as {
        is_error: boolean;
        result: { rows: Array<{ order_id: number }>; page: number; page_size: number };
      };
      expect(acme.is_error).toBe(false);
      expect(acme.result.page).toBe(1);
      expect(acme.result.page_size).toBe(20); // capped: a preview, not an export
      expect(acme.result.rows.length).toBeGreaterThan(0);
      const globex = (await (
        await post(groot, '/v1/admin/reports/console_try/try', body)
      ).json()) as {
        result: { rows: Array<{ order_id: number }> };
      };
      // each tenant's own data schema
      expect(globex.result.rows).not.toEqual(acme.result.rows);
      expect((await gw.request('/v1/admin/reports/console_try', { as: root })).status).toBe(404);
    });

    it('answers tool-level errors as is_error and refuses guard failures (422) and non-admins (403)', async () => {
      const missing = (await (
        await post(root, '/v1/admin/reports/console_try/try', { report: REPORT, arguments: {} })
      ).json()) as { is_error: boolean; error: { code: string } };
      expect(missing).toMatchObject({ is_error: true, error: { code: 'INVALID_ARGUMENTS' } });
      const refused = await post(root, '/v1/admin/reports/console_try/try', {
        report: { ...REPORT, sql_template: 'DELETE FROM orders WHERE total_amount > :min_amount' },
        arguments: { min_amount: 1 },
      });
      expect(refused.status).toBe(422);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
        'INVALID_REPORT',
      );
      expect(
        (await post(alice, '/v1/admin/reports/console_try/try', { report: REPORT })).status,
      ).toBe(403);
    });
  });

  describe('GET /v1/admin/console/catalog', () => {
    it("lists the tenant's reports with status, contexts and version; never another tenant's", async () => {
      await gw.database.handle.db
        .withSchema('gateway')
        .updateTable('reports')
        .set({ sql_template: 'SELECT 1 FROM pg_roles' })
        .where('tenant_id', '=', 'globex')
        .where('id', '=', 'low_stock')
        .execute();
      await gw.request('/v1/admin/reports/console_only_acme', {
        method: 'PUT',
        as: root,
        json: REPORT,
      });
      const acme = (await (await gw.request('/v1/admin/console/catalog', { as: root })).json()) as {
        reports: Array<{ id: string; served: boolean; contexts: string[]; version: number }>;
      };
      const ids = acme.reports.map((r) => r.id);
      expect(ids).toContain('console_only_acme');
      expect(acme.reports.find((r) => r.id === 'sales_by_region')).toMatchObject({
        served: true,
        contexts: ['SALES'],
        version: expect.any(Number),
      });
      expect(acme.reports.find((r) => r.id === 'low_stock')?.served).toBe(true);
      const globex = (await (
        await gw.request('/v1/admin/console/catalog', { as: groot })
      ).json()) as { reports: Array<{ id: string; served: boolean; reason?: string }> };
      expect(globex.reports.map((r) => r.id)).not.toContain('console_only_acme');
      await eventually(async () => {
        const again = (await (
          await gw.request('/v1/admin/console/catalog', { as: groot })
        ).json()) as { reports: Array<{ id: string; served: boolean; reason?: string }> };
        expect(again.reports.find((r) => r.id === 'low_stock')).toMatchObject({
          served: false,
          reason: expect.any(String),
        });
      });
      expect((await gw.request('/v1/admin/console/catalog', { as: alice })).status).toBe(403);
    });
  });

  describe('GET /v1/admin/console/events (server-sent events)', () => {
    async function open(who: TokenClaims) {
      const controller = new AbortController();
      const res = await fetch(`${gw.baseUrl}/v1/admin/console/events`, {
        headers: { authorization: `Bearer ${await mintToken(who)}` },
        signal: controller.signal,
      });
      const events: Array<{ version: number; tenant: string }> = [];
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      void (async () => {
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) return;
            buffer += value;
            let cut: number;
            while ((cut = buffer.indexOf('\n\n')) >= 0) {
              const block = buffer.slice(0, cut);
              buffer = buffer.slice(cut + 2);
              const data = block.split('\n').find((l) => l.startsWith('data: '));
              if (data)
                events.push(JSON.parse(data.slice(6)) as { version: number; tenant: string });
            }
          }
        } catch {
          // aborted
        }
      })();
      return { res, events, close: () => controller.abort() };
    }

    it("sends the tenant's version on connect and after a psql insert; other tenants hear nothing", async () => {
      const acme = await open(root);
      const globex = await open(groot);
      try {
        expect(acme.res.status).toBe(200);
        expect(acme.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
        await eventually(async () => expect(acme.events.length).toBe(1));
        await eventually(async () => expect(globex.events.length).toBe(1));
        expect(acme.events[0].tenant).toBe('acme');
        await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
          VALUES ('acme', 'console_psql', 'By psql', 'Inserted with plain SQL.', 'SELECT 1 AS one', 'sales')`.execute(
          gw.database.handle.db,
        );
        const version = Number(await catalogVersion());
        await eventually(async () => expect(acme.events.map((e) => e.version)).toContain(version));
        expect(globex.events).toHaveLength(1);
        expect(globex.events.every((e) => e.tenant === 'globex')).toBe(true);
      } finally {
        acme.close();
        globex.close();
      }
    });

    it('refuses non-admins and missing tokens with a JSON error, not a stream', async () => {
      const res = await gw.request('/v1/admin/console/events', { as: alice });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
      expect((await fetch(`${gw.baseUrl}/v1/admin/console/events`)).status).toBe(401);
    });
  });

  describe('GET /v1/admin/access/tools', () => {
    it('lists what a user of the tenant gets, by roles, claims and context', async () => {
      const res = await gw.request(
        '/v1/admin/access/tools?user=alice&roles=analyst&context=INVENTORY',
        { as: root },
      );
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        tools: Array<{ name: string }>;
        effective_roles: string[];
      };
      expect(body.tools.map((t) => t.name).sort()).toEqual([
        'query_report_low_stock',
        'query_report_product_catalog',
      ]);
      const rep = (await (
        await gw.request('/v1/admin/access/tools?user=sam&roles=sales_rep&claims=region=west', {
          as: root,
        })
      ).json()) as { tools: Array<{ name: string }> };
      expect(rep.tools.map((t) => t.name)).toContain('query_report_sales_in_my_region');
      const noClaim = (await (
        await gw.request('/v1/admin/access/tools?user=sam&roles=sales_rep', { as: root })
      ).json()) as { tools: Array<{ name: string }> };
      expect(noClaim.tools.map((t) => t.name)).not.toContain('query_report_sales_in_my_region');
    });

    it("never shows another tenant's tools, and refuses non-admins, bad claims and unknown contexts", async () => {
      await gw.request('/v1/admin/reports/console_acme_only', {
        method: 'PUT',
        as: root,
        json: REPORT,
      });
      const globex = (await (
        await gw.request('/v1/admin/access/tools?user=alice&roles=analyst', { as: groot })
      ).json()) as { tools: Array<{ name: string }> };
      expect(globex.tools.map((t) => t.name)).not.toContain('query_report_console_acme_only');
      expect(
        (await gw.request('/v1/admin/access/tools?user=alice&roles=analyst', { as: alice })).status,
      ).toBe(403);
      expect((await gw.request('/v1/admin/access/tools', { as: root })).status).toBe(400);
      expect(
        (await gw.request('/v1/admin/access/tools?user=a&claims=oops', { as: root })).status,
      ).toBe(400);
      expect(
        (await gw.request('/v1/admin/access/tools?user=a&context=NOPE', { as: root })).status,
      ).toBe(400);
    });
  });

  describe('GET /v1/admin/meta-tool/review', () => {
    it("shows the tenant's pending proposals with static findings and the decision history", async () => {
      const proposed = await propose(gw, {
        name: 'console_review_me',
        code: toolSource('console_review_me', 'return { n: args.n ?? 0 };'),
        testArgs: { n: 1 },
      });
      expect(proposed.body.is_error).toBe(false);
      const id = String(proposed.body.result?.proposal_id);
      const review = (await (
        await gw.request('/v1/admin/meta-tool/review', { as: rex })
      ).json()) as {
        pending: Array<{
          id: string;
          proposedBy: string;
          source: string;
          static_findings: unknown[];
        }>;
        history: Array<{ id: string; status: string; reviewed_by: string }>;
      };
      const mine = review.pending.find((p) => p.id === id);
      expect(mine).toMatchObject({ proposedBy: 'ada', static_findings: [] });
      expect(mine?.source).toContain('console_review_me');
      // another tenant's reviewer sees none of it
      const other = (await (
        await gw.request('/v1/admin/meta-tool/review', { as: gus })
      ).json()) as { pending: Array<{ id: string }>; history: Array<{ id: string }> };
      expect(other.pending.map((p) => p.id)).not.toContain(id);
      expect((await decide(gw, id, 'reject', rex)).status).toBe(200);
      const after = (await (
        await gw.request('/v1/admin/meta-tool/review', { as: rex })
      ).json()) as typeof review;
      expect(after.pending.map((p) => p.id)).not.toContain(id);
      expect(after.history.find((h) => h.id === id)).toMatchObject({
        status: 'rejected',
        reviewed_by: 'rex',
      });
      const otherAfter = (await (
        await gw.request('/v1/admin/meta-tool/review', { as: gus })
      ).json()) as typeof other;
      expect(otherAfter.history.map((h) => h.id)).not.toContain(id);
    });

    it('refuses callers without the tool_reviewer role', async () => {
      expect((await gw.request('/v1/admin/meta-tool/review', { as: root })).status).toBe(403);
      expect((await gw.request('/v1/admin/meta-tool/review', { as: alice })).status).toBe(403);
    });
  });

  describe('GET /v1/admin/console/health', () => {
    it("counts the tenant's own calls and errors; another tenant's calls are not in it", async () => {
      const before = (await (
        await gw.request('/v1/admin/console/health', { as: root })
      ).json()) as { calls: Array<{ calls: number; errors: number }>; catalog_version: number };
      const sum = (b: typeof before, k: 'calls' | 'errors') =>
        b.calls.reduce((a, x) => a + x[k], 0);
      await callTool(gw, alice, 'query_report_sales_by_region', { region: 'east' });
      await callTool(gw, alice, 'query_report_sales_by_region', { region: 'nowhere' });
      await callTool(
        gw,
        { tenant: 'globex', user: 'g', roles: ['analyst'] },
        'query_report_sales_by_region',
        {},
      );
      const after = (await (
        await gw.request('/v1/admin/console/health', { as: root })
      ).json()) as typeof before & {
        tenant: string;
        reports: { total: number };
        cache: { list_requests: { l1: number } };
      };
      expect(sum(after, 'calls') - sum(before, 'calls')).toBe(2);
      expect(sum(after, 'errors') - sum(before, 'errors')).toBe(1);
      expect(after.tenant).toBe('acme');
      expect(after.catalog_version).toBe(Number(await catalogVersion()));
      expect(after.reports.total).toBeGreaterThanOrEqual(11);
      expect(after.cache.list_requests.l1).toEqual(expect.any(Number));
      expect((await gw.request('/v1/admin/console/health', { as: alice })).status).toBe(403);
    });
  });

  describe('GET /console (static)', () => {
    it('serves the built console with a strict CSP; assets are immutable, the page is revalidated', async () => {
      const page = await fetch(`${gw.baseUrl}/console/`);
      expect(page.status).toBe(200);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(page.headers.get('cache-control')).toBe('no-cache');
      const html = await page.text();
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
      const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(asset).toMatch(/^\/console\/assets\/[^/]+\.js$/);
      const js = await fetch(`${gw.baseUrl}${asset}`);
      expect(js.status).toBe(200);
      expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(js.headers.get('content-type')).toMatch(/javascript/);
      const redirect = await fetch(`${gw.baseUrl}/console`, { redirect: 'manual' });
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get('location')).toBe('/console/');
    });

    it('answers 404 for files that are not there and for paths that climb out', async () => {
      expect((await fetch(`${gw.baseUrl}/console/assets/nope.js`)).status).toBe(404);
      const climb = await fetch(`${gw.baseUrl}/console/..%2f..%2fpackage.json`);
      expect([400, 403, 404]).toContain(climb.status);
      expect(await climb.text()).not.toContain('report-tool-gateway');
    });
  });
});
