import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Browser, Locator } from 'playwright-core';
import { eventually as poll } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { propose, toolNames, toolSource } from '../support/meta-tool';
import { createWarehouseDatabase, WAREHOUSE_NETWORKS } from '../support/warehouse';
import { mintToken } from '../support/gateway';
import { launchChromium, screenshot, signIn } from './browser';

const ada: TokenClaims = { tenant: 'acme', user: 'ada', roles: ['admin', 'tool_reviewer'] };
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const groot: TokenClaims = { tenant: 'globex', user: 'groot', roles: ['admin', 'tool_reviewer'] };

const VALID_SQL =
  'SELECT o.region, count(*) AS order_count\nFROM orders o\nWHERE (:region IS NULL OR o.region = :region)\nGROUP BY o.region\nORDER BY o.region';

describe('admin console in Chromium (Postgres)', () => {
  let gw: RunningGateway;
  let browser: Browser;

  beforeAll(async () => {
    [gw, browser] = await Promise.all([
      startGateway({ ...WAREHOUSE_NETWORKS, DATASOURCE_KEY: randomBytes(32).toString('base64') }),
      launchChromium(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  it('signs in from the URL fragment, shows who and until when, and signs out', async () => {
    const { context, page, problems } = await signIn(browser, gw.baseUrl, ada);
    try {
      const who = page.getByTestId('who');
      await expectText(who, /ada/);
      await expectText(who, /acme/);
      await expectText(who, /admin, tool_reviewer/);
      await expectText(who, /expires at .* \(in \d+ min\)/);
      expect(page.url()).not.toContain('token=');
      expect(page.url()).toMatch(/#\/catalog$/);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Report tool gateway console' }).waitFor();
      await page.reload();
      await page.getByLabel('Token').waitFor();
      expect(await page.evaluate('sessionStorage.length')).toBe(0);
      await screenshot(page, 'sign-in.png');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('lists the catalog with status, version, category and context; a report inserted by psql appears live', async () => {
    const { context, page, problems } = await signIn(browser, gw.baseUrl, ada);
    try {
      const row = page.locator('tr[data-report="sales_by_region"]');
      await expectText(row, /served/);
      await expectText(row, /SALES/);
      await page.getByTestId('live').filter({ hasText: /^live/ }).waitFor();
      await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
        VALUES ('acme', 'psql_broken', 'Inserted by psql', 'Reads a catalog table it may not.', 'SELECT rolname FROM pg_roles', 'sales'),
               ('acme', 'psql_live', 'Also by psql', 'Counts orders.', 'SELECT count(*) AS n FROM orders', 'finance')`.execute(
        gw.database.handle.db,
      );
      const broken = page.locator('tr[data-report="psql_broken"]');
      await expectText(broken, /not served/);
      await expectText(broken, /pg_roles/);
      await expectText(page.locator('tr[data-report="psql_live"]'), /FINANCE/);
      await page.getByLabel('Search').fill('psql');
      await expectText(page.locator('.count'), /^2 of \d+ reports$/);
      await page.getByLabel('Search').fill('');
      await page.getByLabel('Status').selectOption('not');
      await expectText(page.locator('.count'), /^1 of \d+ reports$/);
      await page.getByLabel('Status').selectOption('all');
      await screenshot(page, 'catalog.png');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('authors a report: a guard refusal, then a valid one; try it; publish; analysts and the REST list get it; disable, enable, delete', async () => {
    const { context, page, problems } = await signIn(browser, gw.baseUrl, ada, 'author');
    try {
      await page.getByLabel('Id').fill('regional_orders');
      await page.getByLabel('Category').fill('sales');
      await page.getByLabel('Name').fill('Orders per region');
      await page
        .getByLabel('Business description (what the model reads)')
        .fill('How many orders each region placed.');
      await page.getByRole('button', { name: 'Add filter' }).click();
      await page.getByLabel('filter 1 name').fill('region');
      await page.getByLabel('filter 1 type').selectOption('enum');
      await page.getByLabel('filter 1 enum values').fill('east, west, north, south');
      await page.getByRole('button', { name: 'Add field' }).click();
      await page.getByLabel('field 1 name').fill('region');
      await page.getByRole('button', { name: 'Add field' }).click();
      await page.getByLabel('field 2 name').fill('order_count');
      await page.getByLabel('field 2 type').selectOption('integer');
      // a refusal first: the guard names the statement, the editor marks it
      await page
        .getByRole('textbox', { name: 'SQL template' })
        .fill('DELETE FROM orders WHERE region = :region');
      const verdict = page.getByTestId('verdict');
      await expectText(verdict, /only SELECT statements are allowed; found DELETE/);
      await expectText(page.locator('.editor mark.offending'), /^DELETE$/);
      expect(await page.getByRole('button', { name: /^Save/ }).isDisabled()).toBe(true);
      await screenshot(page, 'author-refused.png');
      // then a valid one
      await page.getByRole('textbox', { name: 'SQL template' }).fill(VALID_SQL);
      await expectText(verdict, /accepted: query_report_regional_orders/);
      await expectText(page.getByTestId('description'), /How many orders each region placed/);
      await expectText(page.getByTestId('format-openai'), /"type": "function"/);
      await page.getByRole('tab', { name: 'Anthropic' }).click();
      await expectText(page.getByTestId('format-anthropic'), /"input_schema"/);
      await page.getByRole('tab', { name: 'MCP' }).click();
      await expectText(page.getByTestId('format-mcp'), /"inputSchema"/);
      await page.getByLabel('Sample arguments (JSON)').fill('{"region":"east"}');
      await page.getByRole('button', { name: 'Try it' }).click();
      const result = page.getByTestId('try-result');
      await expectText(result, /east/);
      await expectText(result, /^[\s\S]*1 row on page 1/);
      // the page drawn as the report's chart (bars of order_count by region), as a picture
      const chart = page.getByTestId('try-chart');
      await chart.waitFor();
      await eventually(async () =>
        expect(
          await chart.evaluate((img: unknown) => (img as { naturalWidth: number }).naturalWidth),
        ).toBeGreaterThan(0),
      );
      expect(await toolNames(gw, alice)).not.toContain('query_report_regional_orders');
      await screenshot(page, 'author.png');
      await page.getByRole('button', { name: 'Save (publish)' }).click();
      await expectText(page.getByTestId('saved'), /Saved regional_orders/);
      await eventually(async () =>
        expect(await toolNames(gw, alice)).toContain('query_report_regional_orders'),
      );

      // who sees what: the analyst's list, and why
      await page
        .getByRole('navigation', { name: 'Screens' })
        .getByRole('link', { name: 'Who sees what' })
        .click();
      await page.getByLabel('User').fill('alice');
      await page.getByLabel('Roles').fill('analyst');
      await page.getByLabel('Context').selectOption('SALES');
      await page.getByRole('button', { name: 'Show tools' }).click();
      const tools = page.getByTestId('access-tools');
      await expectText(tools, /query_report_regional_orders/);
      await page.getByRole('button', { name: 'query_report_regional_orders' }).click();
      await expectText(page.getByTestId('explain'), /is in alice's list/);
      await page.getByLabel('Tool name').fill('query_report_revenue_by_month');
      await page.getByRole('button', { name: 'Explain' }).click();
      await expectText(page.getByTestId('explain'), /is out of alice's list/);
      await screenshot(page, 'who-sees-what.png');

      // disable, enable, delete, each after a confirmation
      await page.goto(`${gw.baseUrl}/console/#/author/regional_orders`);
      await page.getByRole('button', { name: 'Disable' }).click();
      await page
        .getByRole('dialog')
        .getByText(/Disable regional_orders\?/)
        .waitFor();
      await page.getByRole('button', { name: 'Cancel' }).click();
      expect(await toolNames(gw, alice)).toContain('query_report_regional_orders');
      await page.getByRole('button', { name: 'Disable' }).click();
      await page.getByRole('button', { name: 'Confirm' }).click();
      await expectText(page.getByTestId('saved'), /Disabled regional_orders/);
      expect(await toolNames(gw, alice)).not.toContain('query_report_regional_orders');
      await page.getByRole('button', { name: 'Enable' }).click();
      await page.getByRole('button', { name: 'Confirm' }).click();
      await expectText(page.getByTestId('saved'), /Enabled regional_orders/);
      expect(await toolNames(gw, alice)).toContain('query_report_regional_orders');
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('button', { name: 'Confirm' }).click();
      await page.locator('tr[data-report="sales_by_region"]').waitFor();
      expect(await page.locator('tr[data-report="regional_orders"]').count()).toBe(0);
      expect(await toolNames(gw, alice)).not.toContain('query_report_regional_orders');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("a second browser context signed in as another tenant sees none of acme's reports, users' tools or proposals", async () => {
    await gw.request('/v1/admin/reports/acme_secret', {
      method: 'PUT',
      as: ada,
      json: {
        name: 'Secret',
        description: 'Only acme.',
        category: 'sales',
        sql_template: 'SELECT count(*) AS n FROM orders',
      },
    });
    const proposed = await propose(gw, {
      name: 'acme_private_tool',
      code: toolSource('acme_private_tool', 'return { n: 1 };'),
    });
    expect(proposed.body.is_error).toBe(false);
    const acme = await signIn(browser, gw.baseUrl, ada);
    const globex = await signIn(browser, gw.baseUrl, groot);
    try {
      await acme.page.locator('tr[data-report="acme_secret"]').waitFor();
      await globex.page.locator('tr[data-report="sales_by_region"]').waitFor();
      expect(await globex.page.locator('tr[data-report="acme_secret"]').count()).toBe(0);
      await expectText(globex.page.getByTestId('who'), /groot @ globex/);
      await screenshot(globex.page, 'catalog-other-tenant.png');
      await globex.page.goto(`${gw.baseUrl}/console/#/author/acme_secret`);
      await expectText(globex.page.getByRole('alert').first(), /404 REPORT_NOT_FOUND/);
      await globex.page.goto(`${gw.baseUrl}/console/#/access`);
      await globex.page.getByRole('button', { name: 'Show tools' }).click();
      await globex.page.getByTestId('access-tools').waitFor();
      expect(await globex.page.getByTestId('access-tools').textContent()).not.toContain(
        'acme_secret',
      );
      await globex.page.goto(`${gw.baseUrl}/console/#/review`);
      await globex.page.getByTestId('history').waitFor();
      expect(await globex.page.locator('[data-proposal="acme_private_tool"]').count()).toBe(0);
      await acme.page.goto(`${gw.baseUrl}/console/#/review`);
      await acme.page.locator('[data-proposal="acme_private_tool"]').waitFor();
      expect([...acme.problems, ...globex.problems]).toEqual([]);
    } finally {
      await acme.context.close();
      await globex.context.close();
    }
  });

  it('review: the proposer sees no approve button (and the API refuses); another reviewer approves and sees the runtime gate', async () => {
    const proposer: TokenClaims = {
      tenant: 'acme',
      user: 'ada',
      // a generated tool reads only tables behind the proposer's own reports (meta_tool v2)
      roles: ['tool_author', 'tool_reviewer', 'analyst'],
    };
    const proposed = await propose(
      gw,
      {
        name: 'order_count_tool',
        description: 'Counts orders in a status',
        code: `export default {
  name: 'order_count_tool',
  description: 'How many orders have a status',
  schema: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
  async run(args, ctx) {
    const rows = await ctx.query('SELECT count(*)::int AS n FROM orders WHERE status = $1', [args.status]);
    return { status: args.status, orders: rows[0].n };
  },
};
`,
        testArgs: { status: 'shipped' },
      },
      proposer,
    );
    expect(proposed.body.is_error).toBe(false);
    const id = String(proposed.body.result?.proposal_id);
    const own = await signIn(browser, gw.baseUrl, proposer, 'review');
    const rex = await signIn(
      browser,
      gw.baseUrl,
      { tenant: 'acme', user: 'rex', roles: ['tool_reviewer'] },
      'review',
    );
    try {
      const mine = own.page.locator('[data-proposal="order_count_tool"]');
      await expectText(mine, /You proposed this tool/);
      expect(await mine.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      const refused = await gw.request(`/v1/admin/meta-tool/proposals/${id}/approve`, {
        method: 'POST',
        as: proposer,
        json: {},
      });
      expect(refused.status).toBe(403);

      const card = rex.page.locator('[data-proposal="order_count_tool"]');
      await expectText(card, /proposed by ada/);
      await expectText(card, /passed/);
      await expectText(card.locator('.gutter'), /^1\n2\n3/);
      await expectText(card, /"status": "shipped"/);
      await screenshot(rex.page, 'review.png');
      await card.getByRole('button', { name: 'Approve' }).click();
      // the runtime gate runs the tool in a sandboxed child process: allow for a loaded machine
      await expectText(rex.page.getByTestId('decision'), /order_count_tool: installed/, 30_000);
      await expectText(rex.page.getByTestId('decision'), /smoke call returned/);
      const history = rex.page.getByTestId('history');
      await expectText(history, /order_count_tool/);
      await expectText(history, /rex/);
      await screenshot(rex.page, 'review-decided.png');
      expect([...own.problems, ...rex.problems]).toEqual([]);
    } finally {
      await own.context.close();
      await rex.context.close();
    }
  });

  it("health shows the tenant's catalog version, recent calls and errors, and the caches", async () => {
    await gw.request('/v1/tools', { as: alice });
    await gw.request('/v1/tools/query_report_sales_by_region/call', {
      method: 'POST',
      as: alice,
      json: { arguments: { region: 'east' } },
    });
    await gw.request('/v1/tools/query_report_sales_by_region/call', {
      method: 'POST',
      as: alice,
      json: { arguments: { region: 'atlantis' } },
    });
    const { rows } = await sql<{
      v: string;
    }>`SELECT catalog_version::text AS v FROM gateway.tenants WHERE id = 'acme'`.execute(
      gw.database.handle.db,
    );
    const { context, page, problems } = await signIn(browser, gw.baseUrl, ada, 'health');
    try {
      const health = page.getByTestId('health');
      await expectText(health, new RegExp(`v${rows[0].v}`));
      await expectText(health, /[1-9]\d* errors?/);
      expect(await health.textContent()).not.toMatch(/yet hits|\b1 errors\b|\b1 calls\b/);
      expect(await page.locator('.spark meter').first().getAttribute('aria-label')).toMatch(
        /\d+ calls?, \d+ errors?$/,
      );
      await expectText(health, /tool lists answered from cache/);
      await screenshot(page, 'health.png');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("shows a report's usage: calls, error rate, latency, how callers found it, calls per day drawn", async () => {
    const tool = 'query_report_sales_by_region';
    await gw.request('/v1/tools/select', {
      method: 'POST',
      as: alice,
      json: { messages: [{ role: 'user', content: 'sales by region' }], limit: 5 },
    });
    for (const region of ['east', 'west', 'atlantis'])
      await gw.request(`/v1/tools/${tool}/call`, {
        method: 'POST',
        as: alice,
        json: { arguments: { region } },
      });
    const { context, page, problems } = await signIn(browser, gw.baseUrl, ada, `usage/${tool}`);
    try {
      const usage = page.getByTestId('usage');
      await expectText(usage, /\d+ calls/);
      await expectText(usage, /p95 latency/);
      await expectText(page.getByTestId('found-via'), /picked by POST \/v1\/tools\/select\s*[1-9]/);
      const chart = page.getByTestId('usage-chart');
      await chart.waitFor();
      await eventually(async () =>
        expect(
          await chart.evaluate((img: unknown) => (img as { naturalWidth: number }).naturalWidth),
        ).toBeGreaterThan(0),
      );
      await screenshot(page, 'usage.png');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("lists the tenant's data sources with their health, never a password; another tenant sees none", async () => {
    const wh = await createWarehouseDatabase(
      'CREATE SCHEMA sales; CREATE TABLE sales.orders (id integer PRIMARY KEY, region text)',
    );
    try {
      const reader = await wh.login((r) => [
        `GRANT USAGE ON SCHEMA sales TO ${r}`,
        `GRANT SELECT ON sales.orders TO ${r}`,
      ]);
      const put = await gw.request('/v1/admin/datasources/wh', {
        method: 'PUT',
        as: ada,
        json: { url: reader.url, schema: 'sales', tables: ['orders'] },
      });
      expect(put.status).toBe(201);
      const report = await gw.request('/v1/admin/reports/wh_regions', {
        method: 'PUT',
        as: ada,
        json: {
          name: 'Warehouse regions',
          description: 'Regions of the warehouse orders.',
          sql_template: 'SELECT DISTINCT o.region FROM orders o',
          category: 'sales',
          datasource: 'wh',
          fields: [{ name: 'region', type: 'string' }],
        },
      });
      expect(report.status).toBe(201);
      const password = new URL(reader.url).password;
      const own = await signIn(browser, gw.baseUrl, ada, 'sources');
      const other = await signIn(browser, gw.baseUrl, groot, 'sources');
      try {
        const row = own.page.locator('tr[data-source="wh"]');
        await expectText(row, /reachable/);
        await expectText(row, /schema sales: orders/);
        expect(await own.page.content()).not.toContain(password);
        await screenshot(own.page, 'sources.png');
        await other.page.getByTestId('no-sources').waitFor();
        // the catalog says where a report runs
        await own.page.goto(`${gw.baseUrl}/console/#/catalog`);
        await expectText(own.page.locator('tr[data-report="wh_regions"]'), /runs on wh/);
        expect(own.problems).toEqual([]);
        expect(other.problems).toEqual([]);
      } finally {
        await own.context.close();
        await other.context.close();
        await gw.request('/v1/admin/reports/wh_regions', { method: 'DELETE', as: ada });
        await gw.request('/v1/admin/datasources/wh', { method: 'DELETE', as: ada });
      }
    } finally {
      await wh.drop();
    }
  });

  it('signs in from a link pasted into an open tab; the top bar stays on one line at 1280 px', async () => {
    const { context, page, problems } = await signIn(browser, gw.baseUrl, groot);
    try {
      await expectText(page.getByTestId('who'), /groot/);
      const token = await mintToken({ ...ada, expiresIn: '30m' });
      await page.evaluate(`location.hash = ${JSON.stringify(`#token=${token}`)}`);
      await expectText(page.getByTestId('who'), /ada/);
      expect(page.url()).not.toContain('token=');
      await page.setViewportSize({ width: 1280, height: 800 });
      const tops = await page
        .getByRole('navigation', { name: 'Screens' })
        .getByRole('link')
        .evaluateAll((links) => links.map((l) => Math.round(l.getBoundingClientRect().top)));
      expect(new Set(tops).size).toBe(1);
      const bar = await page.locator('header.top').boundingBox();
      expect(bar!.height).toBeLessThan(60);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows the refusal, not data, to a user the admin API refuses', async () => {
    const { context, page, problems } = await signIn(browser, gw.baseUrl, alice);
    try {
      await expectText(page.getByRole('alert'), /403 FORBIDDEN/);
      expect(await page.locator('tr[data-report]').count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

function eventually<T>(check: () => Promise<T>, timeoutMs = 5000): Promise<T> {
  return poll(check, { timeoutMs });
}

/** Waits (polling, with a deadline) until the element's text matches. */
async function expectText(locator: Locator, pattern: RegExp, timeoutMs = 5000): Promise<void> {
  await eventually(async () => {
    const text = (await locator.first().innerText({ timeout: 5000 })).trim();
    if (!pattern.test(text)) throw new Error(`"${text.slice(0, 400)}" does not match ${pattern}`);
  }, timeoutMs);
}
