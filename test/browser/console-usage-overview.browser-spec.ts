import type { Browser, Locator } from 'playwright-core';
import { eventually } from '../support/eventually';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { launchChromium, screenshot, signIn } from './browser';

const ada: TokenClaims = { tenant: 'acme', user: 'ada', roles: ['admin'] };

/**
 * Issue #39 items 5 and 6: the usage of every report at once (used, failing, never called,
 * sortable), a never-called report's page without a chart of zeros, a sign-in link opened in a
 * tab on the sign-in screen, and the top bar at 1280 px.
 */
describe('console usage overview and rough edges (Chromium)', () => {
  let gw: RunningGateway;
  let browser: Browser;

  beforeAll(async () => {
    [gw, browser] = await Promise.all([startGateway(), launchChromium()]);
    const put = await gw.request('/v1/admin/reports/never_called', {
      method: 'PUT',
      as: ada,
      json: {
        name: 'Never called',
        description: 'A report no one calls.',
        sql_template: 'SELECT o.id FROM orders o WHERE o.id = :order_id',
        category: 'sales',
        filters: [{ name: 'order_id', type: 'integer', required: true }],
        fields: [{ name: 'id', type: 'integer' }],
      },
    });
    expect(put.status).toBe(201);
    for (const args of [{ order_id: 7 }, { order_id: 8 }, { order_id: 'x' }]) {
      const res = await gw.request('/v1/tools/query_report_order_lookup/call', {
        method: 'POST',
        as: ada,
        json: { arguments: args },
      });
      expect(res.status).toBe(200);
    }
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  it('lists every report with calls, errors, empty results and latency; never-called ones show; columns sort', async () => {
    const { context, page, problems } = await signIn(browser, gw.baseUrl, ada, 'usage');
    try {
      const overview = page.getByTestId('usage-overview');
      const lookup = overview.locator('tr[data-usage="order_lookup"]');
      await expectText(lookup, /order_lookup[\s\S]*\b3\b[\s\S]*33\.3 % \(1\)/);
      await expectText(overview.locator('tr[data-usage="never_called"]'), /never called/);
      await expectText(overview, /reports over the last 14 days; \d+ never called/);
      // most called first; sorted by report id on a click, then back
      const ids = () =>
        overview
          .locator('tr[data-usage]')
          .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-usage')));
      expect((await ids())[0]).toBe('order_lookup');
      await overview.getByRole('button', { name: 'Report' }).click();
      const byId = await ids();
      expect(byId).toEqual([...byId].sort());
      await overview.getByRole('button', { name: 'Calls' }).click();
      expect((await ids())[0]).toBe('order_lookup');
      await screenshot(page, 'usage-overview.png');
      // a never-called report's page: no chart of zeros, "0 of 0 calls"
      await overview.getByRole('link', { name: 'never_called' }).click();
      const usage = page.getByTestId('usage');
      await expectText(usage, /errors \(0 of 0 calls\)/);
      await expectText(page.getByTestId('usage-no-calls'), /No calls in the last 14 days/);
      expect(await page.getByTestId('usage-chart').count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a sign-in link opened in a tab on the sign-in screen signs in at once (no "No such screen")', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await page.goto(`${gw.baseUrl}/console/`);
      await page.getByLabel('Token').waitFor();
      const token = await mintToken({
        tenant: 'acme',
        user: 'ada.lovelace@example.com',
        roles: ['admin', 'tool_reviewer'],
        expiresIn: '30m',
      });
      await page.evaluate(`location.hash = ${JSON.stringify(`#token=${token}`)}`);
      await expectText(page.getByTestId('who'), /ada.lovelace/);
      await page
        .getByRole('heading', { name: /Catalog|Reports/ })
        .first()
        .waitFor();
      expect(await page.getByText('No such screen.').count()).toBe(0);
      expect(page.url()).not.toContain('token=');
      // the top bar at 1280 px: no link runs under the user block (it moves to a line of its own)
      const links = page.getByRole('navigation', { name: 'Screens' }).getByRole('link');
      const who = (await page.getByTestId('who').boundingBox())!;
      for (const box of await links.evaluateAll((all) =>
        all.map((l) => {
          const r = l.getBoundingClientRect();
          return { x: r.x, y: r.y, width: r.width, height: r.height };
        }),
      )) {
        const apart =
          box.x + box.width <= who.x ||
          who.x + who.width <= box.x ||
          box.y + box.height <= who.y ||
          who.y + who.height <= box.y;
        expect(apart).toBe(true);
      }
      await expectText(page.getByTestId('who'), /@ acme/);
    } finally {
      await context.close();
    }
  });
});

async function expectText(locator: Locator, pattern: RegExp): Promise<void> {
  await eventually(
    async () => {
      const text = (await locator.first().innerText({ timeout: 5000 })).trim();
      if (!pattern.test(text)) throw new Error(`"${text.slice(0, 400)}" does not match ${pattern}`);
    },
    { timeoutMs: 10_000 },
  );
}
