import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { eventually } from '../support/eventually';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { launchChromium, screenshot } from './browser';

/**
 * The MCP Apps View of report tools (#33) in Chromium, hosted by the extension's own host
 * bridge (`@modelcontextprotocol/ext-apps/app-bridge`): a real MCP session lists a report tool
 * (which declares the View), reads the View resource and calls the tool; the host page frames
 * the View under the extension's default CSP and hands it the real result. The chart is
 * drawn, nothing leaves the frame, and an empty, an error and a partial result each say so.
 */
const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const HOST = 'http://mcp-host.test/';
/** The extension's default policy for a View that declares no domains. */
const VIEW_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'none'";

interface McpTool {
  name: string;
  _meta?: Record<string, unknown>;
}

describe('MCP Apps chart View in Chromium (app-bridge host)', () => {
  let gw: RunningGateway;
  let browser: Browser;
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  let hostScript: string;
  let viewHtml: string;
  let tools: Map<string, McpTool>;

  beforeAll(async () => {
    [gw, browser] = await Promise.all([startGateway(), launchChromium()]);
    transport = new StreamableHTTPClientTransport(new URL(`${gw.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${await mintToken(root)}` } },
    });
    client = new Client({ name: 'chart-view-host', version: '1.0.0' });
    await client.connect(transport);
    tools = new Map(
      ((await client.listTools()).tools as McpTool[]).map((t) => [t.name, t] as const),
    );
    const uri = (tools.get('query_report_sales_by_region')!._meta!.ui as { resourceUri: string })
      .resourceUri;
    const read = await client.readResource({ uri });
    const [contents] = read.contents as Array<{ mimeType: string; text: string }>;
    expect(contents.mimeType).toBe('text/html;profile=mcp-app');
    viewHtml = contents.text;
    // the host's side, bundled from the extension's package for the browser
    const bundled = await build({
      stdin: {
        contents: `import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
          window.host = { AppBridge, PostMessageTransport };`,
        resolveDir: path.resolve(__dirname, '../..'),
      },
      bundle: true,
      format: 'iife',
      write: false,
      logLevel: 'silent',
    });
    hostScript = bundled.outputFiles[0].text;
  });
  afterAll(async () => {
    await transport?.terminateSession().catch(() => undefined);
    await client?.close();
    await browser?.close();
    await gw?.close();
  });

  /** A host page that frames the View and hands it `result` for `tool`; what it requested. */
  async function host(
    tool: string,
    result: unknown,
    theme: 'light' | 'dark' = 'light',
  ): Promise<{ page: Page; requests: string[]; problems: string[]; close(): Promise<void> }> {
    const context = await browser.newContext({ viewport: { width: 980, height: 640 } });
    const page = await context.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    const srcdoc = viewHtml.replace(
      '<head>',
      `<head><meta http-equiv="Content-Security-Policy" content="${VIEW_CSP}">`,
    );
    const page_ = `<!doctype html><html><body style="margin:0">
      <iframe id="view" sandbox="allow-scripts" style="width:960px;height:600px;border:0"></iframe>
      <script>${hostScript.replace(/<\/script/gi, '<\\/script')}</script>
      <script>
        const data = ${JSON.stringify({ srcdoc, tool: tools.get(tool), result, theme }).replace(/</g, '\\u003c')};
        const frame = document.getElementById('view');
        const bridge = new host.AppBridge(null, { name: 'test-host', version: '1.0.0' }, {},
          { hostContext: { theme: data.theme, toolInfo: { id: 1, tool: data.tool } } });
        bridge.oninitialized = () => bridge.sendToolResult(data.result);
        // listening before the View loads: its ui/initialize is the first thing it sends
        void bridge.connect(new host.PostMessageTransport(frame.contentWindow, frame.contentWindow));
        frame.srcdoc = data.srcdoc;
      </script></body></html>`;
    await page.route(HOST, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: page_ }),
    );
    await page.goto(HOST);
    return { page, requests, problems, close: () => context.close() };
  }

  const view = (page: Page) => page.frameLocator('#view').locator('#view');
  async function state(page: Page): Promise<string | null> {
    return eventually(
      async () => {
        const s = await view(page).getAttribute('data-state');
        if (s === 'waiting' || s === null) throw new Error('the View has not drawn yet');
        return s;
      },
      { timeoutMs: 15_000 },
    );
  }

  it.each([
    ['query_report_sales_by_region', 'bar', 'view-bar.png'],
    ['query_report_revenue_by_month', 'line', 'view-line.png'],
    ['query_report_product_catalog', 'table', 'view-table.png'],
  ] as const)(
    'draws %s as its %s chart with the table beside it, and nothing leaves the frame',
    async (tool, chart, picture) => {
      expect(
        (tools.get(tool)!._meta!['io.github.report-tool-gateway/chart'] as { type: string }).type,
      ).toBe(chart);
      const result = await client.callTool({ name: tool, arguments: {} });
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
    const empty = await client.callTool({
      name: 'query_report_order_lookup',
      arguments: { order_id: 987654321 },
    });
    const refused = await client.callTool({
      name: 'query_report_order_lookup',
      arguments: { order_id: 'seven' },
    });
    const partial = await client.callTool({
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
