import type { Browser } from 'playwright-core';
import { eventually } from '../support/eventually';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { launchChromium, screenshot } from './browser';
import { connectViewHost, HOST, viewState } from './chart-view-host';
import type { ViewHost } from './chart-view-host';

/**
 * The MCP Apps View of report tools (#33) in Chromium, hosted by the extension's own host
 * bridge (`@modelcontextprotocol/ext-apps/app-bridge`): a real MCP session lists a report tool
 * (which declares the View), reads the View resource and calls the tool; the host page frames
 * the View under the extension's default CSP and hands it the real result. The chart is
 * drawn, nothing leaves the frame, and an empty, an error and a partial result each say so.
 * (`npm run docs:charts` draws the pictures of docs/charts through the same host.)
 */
const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };

describe('MCP Apps chart View in Chromium (app-bridge host)', () => {
  let gw: RunningGateway;
  let browser: Browser;
  let viewHost: ViewHost;

  beforeAll(async () => {
    [gw, browser] = await Promise.all([startGateway(), launchChromium()]);
    viewHost = await connectViewHost(gw.baseUrl, await mintToken(root));
    expect(viewHost.viewMimeType).toBe('text/html;profile=mcp-app');
  });
  afterAll(async () => {
    await viewHost?.close();
    await browser?.close();
    await gw?.close();
  });

  const client = () => viewHost.client;
  const tools = () => viewHost.tools;
  const host = (tool: string, result: unknown, theme: 'light' | 'dark' = 'light') =>
    viewHost.open(browser, tool, result, theme);
  const view = (page: Parameters<typeof viewState>[0]) =>
    page.frameLocator('#view').locator('#view');
  const state = (page: Parameters<typeof viewState>[0]) => viewState(page, eventually);

  it.each([
    ['query_report_sales_by_region', 'bar', 'view-bar.png'],
    ['query_report_revenue_by_month', 'line', 'view-line.png'],
    ['query_report_product_catalog', 'table', 'view-table.png'],
  ] as const)(
    'draws %s as its %s chart with the table beside it, and nothing leaves the frame',
    async (tool, chart, picture) => {
      expect(
        (tools().get(tool)!._meta!['io.github.report-tool-gateway/chart'] as { type: string }).type,
      ).toBe(chart);
      const result = await client().callTool({ name: tool, arguments: {} });
      const h = await host(tool, result);
      try {
        expect(await state(h.page)).toBe('drawn');
        expect(await view(h.page).getAttribute('data-chart')).toBe(chart);
        const frame = h.page.frameLocator('#view');
        expect(await frame.locator('#table tbody tr').count()).toBeGreaterThan(0);
        if (chart !== 'table')
          expect(
            await frame.locator('#chart svg .mark-' + (chart === 'bar' ? 'rect' : 'line')).count(),
          ).toBeGreaterThan(0);
        await screenshot(h.page, picture);
        // the host page itself, and nothing else: no request left the View
        expect(h.requests).toEqual([HOST]);
        expect(h.problems).toEqual([]);
      } finally {
        await h.close();
      }
    },
  );

  it('says so for an empty result, an error result and a partial page', async () => {
    const empty = await client().callTool({
      name: 'query_report_order_lookup',
      arguments: { order_id: 987654321 },
    });
    const refused = await client().callTool({
      name: 'query_report_order_lookup',
      arguments: { order_id: 'seven' },
    });
    const partial = await client().callTool({
      name: 'query_report_product_catalog',
      arguments: { page_size: 2 },
    });
    for (const [tool, result, expected, text] of [
      ['query_report_order_lookup', empty, 'empty', /No rows match/],
      ['query_report_order_lookup', refused, 'error', /refused the call/],
      ['query_report_product_catalog', partial, 'drawn', /more pages exist/],
    ] as const) {
      const h = await host(tool, result, 'dark');
      try {
        expect(await state(h.page)).toBe(expected);
        expect(await h.page.frameLocator('#view').locator('#status').textContent()).toMatch(text);
        expect(h.requests).toEqual([HOST]);
        expect(h.problems).toEqual([]);
      } finally {
        await h.close();
      }
    }
  });
});
