import { BuiltinTools } from '@app/registry';
import { sql } from 'kysely';
import { changeCatalog, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const anna: TokenClaims = { tenant: 'acme', user: 'anna', roles: ['analyst'] };
const fiona: TokenClaims = { tenant: 'acme', user: 'fiona', roles: ['finance'] };
const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const rita: TokenClaims = {
  tenant: 'acme',
  user: 'rita',
  roles: ['sales_rep'],
  claims: { region: 'west' },
};
const sam: TokenClaims = {
  tenant: 'acme',
  user: 'sam',
  roles: ['sales_rep'],
  claims: { region: 'east' },
};
const noClaimRep: TokenClaims = { tenant: 'acme', user: 'tom', roles: ['sales_rep'] };
const gina: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };
const globexRoot: TokenClaims = { tenant: 'globex', user: 'groot', roles: ['admin'] };

interface CallBody {
  is_error: boolean;
  result?: { rows: Array<Record<string, unknown>> };
  error?: { code: string; message: string };
}

describe('who sees what (e2e, real Postgres)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway();
    // A report, a context and grants that exist only in globex.
    await changeCatalog(gw, 'globex', (db) =>
      sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
              VALUES ('globex', 'globex_secret', 'Secret', 'globex only', 'SELECT count(*) AS n FROM orders', 'sales')`.execute(
        db,
      ),
    );
    await changeCatalog(gw, 'globex', (db) =>
      sql`INSERT INTO gateway.business_contexts (tenant_id, name) VALUES ('globex', 'GLOBEX_ONLY')`.execute(
        db,
      ),
    );
  });
  afterAll(() => gw.close());

  async function list(
    who: TokenClaims,
    query = '',
  ): Promise<{ status: number; names: string[]; key: string | null; text: string }> {
    const res = await gw.request(`/v1/tools${query}`, { as: who });
    const text = await res.text();
    const names =
      res.status === 200
        ? (JSON.parse(text) as { tools: Array<{ function: { name: string } }> }).tools.map(
            (t) => t.function.name,
          )
        : [];
    return { status: res.status, names, key: res.headers.get('x-toolset-key'), text };
  }

  async function call(
    who: TokenClaims,
    tool: string,
    args: unknown,
  ): Promise<{ status: number; body: CallBody; text: string }> {
    const res = await gw.request(`/v1/tools/${tool}/call`, {
      method: 'POST',
      as: who,
      json: { arguments: args },
    });
    const text = await res.text();
    return { status: res.status, body: JSON.parse(text) as CallBody, text };
  }

  describe('permissions and contexts', () => {
    it('gives an analyst 5 to 8 tools in SALES, and finance its own set', async () => {
      const sales = await list(alice, '?context=SALES');
      expect(sales.names).toEqual([
        'query_report_customers_by_segment',
        'query_report_order_lookup',
        'query_report_orders_by_status',
        'query_report_sales_by_region',
        'query_report_top_customers',
      ]);
      const finance = await list(fiona);
      expect(finance.names).toEqual([
        'query_report_average_order_value',
        'query_report_revenue_by_month',
        'query_report_sales_by_region',
      ]);
    });

    it('takes the context from the X-Business-Context header too', async () => {
      const res = await gw.request('/v1/tools', {
        as: alice,
        headers: { 'x-business-context': 'INVENTORY' },
      });
      const body = (await res.json()) as { tools: Array<{ function: { name: string } }> };
      expect(body.tools.map((t) => t.function.name)).toEqual([
        'query_report_low_stock',
        'query_report_product_catalog',
      ]);
    });

    it('narrows and never widens: a context holds only permitted tools', async () => {
      const all = await list(alice);
      for (const context of ['SALES', 'FINANCE', 'INVENTORY']) {
        const narrowed = await list(alice, `?context=${context}`);
        expect(narrowed.names.every((n) => all.names.includes(n))).toBe(true);
      }
      expect((await list(alice, '?context=FINANCE')).names).toEqual([]);
    });

    it('gives users with the same permissions byte-identical lists and the same toolset key', async () => {
      const a = await list(alice, '?context=SALES');
      const b = await list(anna, '?context=SALES');
      expect(b.text).toBe(a.text);
      expect(b.key).toBe(a.key);
      expect((await list(fiona, '?context=SALES')).key).not.toBe(a.key);
    });

    it('lets a per-user denial win over a role grant, for that user only', async () => {
      await changeCatalog(gw, 'acme', (db) =>
        sql`INSERT INTO gateway.user_grants (tenant_id, user_id, report_id, effect) VALUES ('acme', 'anna', 'top_customers', 'deny')`.execute(
          db,
        ),
      );
      expect((await list(anna)).names).not.toContain('query_report_top_customers');
      expect((await call(anna, 'query_report_top_customers', {})).status).toBe(404);
      expect((await list(alice)).names).toContain('query_report_top_customers');
    });

    it('adds per-user grants and roles stored in the tenant', async () => {
      await changeCatalog(gw, 'acme', (db) =>
        sql`INSERT INTO gateway.user_grants (tenant_id, user_id, report_id, effect) VALUES ('acme', 'alice', 'revenue_by_month', 'allow')`.execute(
          db,
        ),
      );
      await changeCatalog(gw, 'acme', (db) =>
        sql`INSERT INTO gateway.user_roles (tenant_id, user_id, role) VALUES ('acme', 'carol', 'finance')`.execute(
          db,
        ),
      );
      expect((await list(alice)).names).toContain('query_report_revenue_by_month');
      expect((await list(anna)).names).not.toContain('query_report_revenue_by_month');
      expect((await list({ tenant: 'acme', user: 'carol', roles: [] })).names).toContain(
        'query_report_revenue_by_month',
      );
    });

    it('gives an admin every served report of its tenant and nothing of another', async () => {
      // 11 reports; sales_in_my_region also needs a region claim, even for an admin
      expect((await list({ ...root, claims: { region: 'north' } })).names).toHaveLength(11);
      const adminNames = (await list(root)).names;
      expect(adminNames).toHaveLength(10);
      expect(adminNames).not.toContain('query_report_globex_secret');
      expect((await list(globexRoot)).names).toContain('query_report_globex_secret');
    });

    it('shows a built-in that requires a role only to holders of that role', async () => {
      gw.app.get(BuiltinTools).register({
        definition: {
          name: 'test_builtin',
          description: 'test',
          inputSchema: { type: 'object', properties: {}, additionalProperties: false },
          readOnly: true,
        },
        category: 'builtin',
        requiredRole: 'builtin_tester',
        call: async () => ({
          tool: 'test_builtin',
          is_error: false,
          result: { columns: [], rows: [], page: 1, page_size: 20, has_more: false },
        }),
      });
      await changeCatalog(gw, 'acme', (db) =>
        sql`INSERT INTO gateway.roles (tenant_id, name) VALUES ('acme', 'builtin_tester')`.execute(
          db,
        ),
      );
      expect((await list(root)).names).not.toContain('test_builtin');
      expect((await list({ ...alice, roles: ['analyst', 'builtin_tester'] })).names).toContain(
        'test_builtin',
      );
      expect((await call(alice, 'test_builtin', {})).status).toBe(404);
      expect(
        (await call({ ...alice, roles: ['builtin_tester'] }, 'test_builtin', {})).body.is_error,
      ).toBe(false);
      // globex has no builtin_tester role, so the token's claim grants nothing there
      expect((await list({ ...gina, roles: ['builtin_tester'] })).names).not.toContain(
        'test_builtin',
      );
    });
  });

  describe('identity-bound parameters', () => {
    it("gives a regional rep only their own region's rows from the same report", async () => {
      const west = await call(rita, 'query_report_sales_in_my_region', {});
      const east = await call(sam, 'query_report_sales_in_my_region', {});
      expect(west.body.result?.rows.length).toBeGreaterThan(0);
      expect(new Set(west.body.result?.rows.map((r) => r.region))).toEqual(new Set(['west']));
      expect(new Set(east.body.result?.rows.map((r) => r.region))).toEqual(new Set(['east']));
    });

    it('keeps a report that needs a claim out of the list of a token without it', async () => {
      expect((await list(rita)).names).toContain('query_report_sales_in_my_region');
      expect((await list(noClaimRep)).names).not.toContain('query_report_sales_in_my_region');
      expect((await call(noClaimRep, 'query_report_sales_in_my_region', {})).status).toBe(404);
    });

    it('binds :user_id from the token', async () => {
      const mine = await call(rita, 'query_report_my_orders', { page_size: 100 });
      expect(mine.body.result?.rows.length).toBe(100);
      const { rows } = await gw.database.handle.withSession((s) =>
        s.query("SELECT count(*)::int AS n FROM tenant_acme.orders WHERE sales_rep = 'rita'"),
      );
      expect(rows[0].n).toBeGreaterThan(100);
    });

    it.each([
      [{ tenant_id: 'globex' }, 'tenant_id'],
      [{ user_id: 'bob' }, 'user_id'],
      [{ Tenant_ID: 'globex' }, 'Tenant_ID'],
      [{ ｕｓｅｒ_ｉｄ: 'bob' }, 'ｕｓｅｒ_ｉｄ'],
      [{ 'user\u200b_id': 'bob' }, 'user\u200b_id'],
      [{ claim_region: 'east' }, 'claim_region'],
    ])('refuses an override attempt %j with is_error', async (args, key) => {
      const res = await call(rita, 'query_report_sales_in_my_region', args);
      expect(res.status).toBe(200);
      expect(res.body.is_error).toBe(true);
      expect(res.body.error).toEqual({
        code: 'INVALID_ARGUMENTS',
        message: `"${key}" is bound to your identity and cannot be passed as an argument; remove it`,
      });
    });
  });

  describe('tenant isolation, one test per path', () => {
    it('list: acme never lists a globex-only report', async () => {
      expect((await list(alice)).names).not.toContain('query_report_globex_secret');
      expect((await list(root)).text).not.toContain('globex');
    });

    it('call: the same tool name runs on the caller tenant only', async () => {
      const acme = await call(alice, 'query_report_customers_by_segment', { segment: 'smb' });
      const globex = await call(gina, 'query_report_customers_by_segment', { segment: 'smb' });
      // both calls ran (an error on either side would also make the rows differ)
      expect(acme.status).toBe(200);
      expect(globex.status).toBe(200);
      expect(acme.body.is_error).toBe(false);
      expect(globex.body.is_error).toBe(false);
      expect(acme.body.result?.rows.length).toBeGreaterThan(0);
      expect(globex.body.result?.rows.length).toBeGreaterThan(0);
      expect(acme.body.result?.rows).not.toEqual(globex.body.result?.rows);
    });

    it("call by a guessed name of another tenant's report: the same 404 as a missing tool", async () => {
      const guessed = await call(root, 'query_report_globex_secret', {});
      const missing = await call(root, 'query_report_globex_secreu', {});
      expect(guessed.status).toBe(404);
      expect(missing.status).toBe(404);
      // the same answer, apart from each request's own trace id
      const same = (text: string) => text.replace(/"trace_id":"[0-9a-f]{32}"/, '"trace_id":"-"');
      expect(same(guessed.text).replace('secret', 'X')).toBe(
        same(missing.text).replace('secreu', 'X'),
      );
    });

    it('context of another tenant: 400 listing only the caller tenant contexts', async () => {
      const res = await list(alice, '?context=GLOBEX_ONLY');
      expect(res.status).toBe(400);
      const body = JSON.parse(res.text) as {
        error: { message: string; details: { valid_contexts: string[] } };
      };
      expect(body.error.details.valid_contexts).toEqual(['FINANCE', 'INVENTORY', 'SALES']);
      expect(body.error.message).toBe(
        'unknown business context "GLOBEX_ONLY"; valid contexts: FINANCE, INVENTORY, SALES',
      );
    });

    it('a token for a tenant that does not exist: 401, no tools', async () => {
      const res = await list({ tenant: 'initech', user: 'x', roles: ['admin'] });
      expect(res.status).toBe(401);
      expect(res.text).not.toMatch(/acme|globex/);
    });

    it('a token with no roles: an empty list and 404 on calls', async () => {
      const nobody: TokenClaims = { tenant: 'acme', user: 'nobody', roles: [] };
      expect((await list(nobody)).names).toEqual([]);
      expect((await call(nobody, 'query_report_sales_by_region', {})).status).toBe(404);
    });

    it("a role name from another tenant's vocabulary grants nothing", async () => {
      await changeCatalog(gw, 'globex', (db) =>
        sql`INSERT INTO gateway.roles (tenant_id, name, is_admin) VALUES ('globex', 'globex_boss', true)`.execute(
          db,
        ),
      );
      expect((await list({ tenant: 'acme', user: 'x', roles: ['globex_boss'] })).names).toEqual([]);
    });

    it('explain: no other tenant is revealed', async () => {
      const res = await gw.request('/v1/me/tools/explain?tool=query_report_globex_secret', {
        as: root,
      });
      const body = (await res.json()) as {
        visible: boolean;
        checks: Array<{ check: string; ok: boolean; detail: string }>;
      };
      expect(body.visible).toBe(false);
      expect(body.checks).toEqual([
        {
          check: 'exists',
          ok: false,
          detail: 'no tool named "query_report_globex_secret" exists in tenant acme',
        },
      ]);
    });
  });

  describe('explain', () => {
    async function explain(who: TokenClaims, query: string) {
      const res = await gw.request(`/v1/me/tools/explain?${query}`, { as: who });
      return {
        status: res.status,
        body: (await res.json()) as {
          visible: boolean;
          effective_roles: string[];
          checks: Array<{ check: string; ok: boolean; detail: string }>;
        },
      };
    }

    it("tells an admin why alice can't see revenue_by_month and why fiona can", async () => {
      const no = await explain(root, 'tool=query_report_revenue_by_month&user=anna&roles=analyst');
      expect(no.body.visible).toBe(false);
      expect(no.body.checks.find((c) => c.check === 'grant')).toEqual({
        check: 'grant',
        ok: false,
        detail: 'none of the roles analyst is granted revenue_by_month or category finance',
      });
      const yes = await explain(
        root,
        'tool=query_report_revenue_by_month&user=fiona&roles=finance',
      );
      expect(yes.body.visible).toBe(true);
      expect(yes.body.checks.find((c) => c.check === 'grant')?.detail).toBe(
        'role finance is granted category finance',
      );
    });

    it('names the missing claim and the context', async () => {
      const res = await explain(
        root,
        'tool=query_report_sales_in_my_region&user=tom&roles=sales_rep&context=FINANCE',
      );
      expect(res.body.checks.filter((c) => !c.ok).map((c) => c.detail)).toEqual([
        'not in context FINANCE (category field_sales)',
        'the token lacks claim region',
      ]);
    });

    it('takes the context from the X-Business-Context header, as the list does', async () => {
      const query = 'tool=query_report_sales_in_my_region&user=tom&roles=sales_rep';
      const res = await gw.request(`/v1/me/tools/explain?${query}`, {
        as: root,
        headers: { 'x-business-context': 'FINANCE' },
      });
      const body = (await res.json()) as { checks: Array<{ check: string; detail: string }> };
      expect(body.checks.find((c) => c.check === 'context')?.detail).toBe(
        'not in context FINANCE (category field_sales)',
      );
      const named = await explain(root, `${query}&context=SALES`);
      expect(named.body.checks.find((c) => c.check === 'context')?.detail).not.toContain('FINANCE');
    });

    it('lets a non-admin explain only their own visible tools; forbidden reads like missing', async () => {
      const own = await explain(alice, 'tool=query_report_sales_by_region');
      expect(own.body.visible).toBe(true);
      const forbidden = await explain(anna, 'tool=query_report_revenue_by_month');
      const missing = await explain(anna, 'tool=query_report_nothing');
      expect(forbidden.body.checks[0].detail.replace('revenue_by_month', 'X')).toBe(
        missing.body.checks[0].detail.replace('nothing', 'X'),
      );
      expect((await explain(alice, 'tool=query_report_sales_by_region&user=fiona')).status).toBe(
        403,
      );
    });
  });
});
