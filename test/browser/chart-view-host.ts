import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';

/**
 * A chat client's side of the MCP Apps chart View (#33), shared by the browser test and
 * `npm run docs:charts`: a real MCP session lists the report tools (which declare the View)
 * and reads the View resource; a host page made with the extension's own `AppBridge` frames
 * the View under the extension's default CSP and hands it a tool's result.
 */
export const HOST = 'http://mcp-host.test/';
/** The extension's default policy for a View that declares no domains. */
const VIEW_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'none'";

export interface McpTool {
  name: string;
  _meta?: Record<string, unknown>;
}

export interface ViewHost {
  client: Client;
  tools: Map<string, McpTool>;
  viewHtml: string;
  viewMimeType: string;
  /** a page framing the View, handed `result` for `tool`; what it requested, what it logged */
  open(
    browser: Browser,
    tool: string,
    result: unknown,
    theme?: 'light' | 'dark',
  ): Promise<{ page: Page; requests: string[]; problems: string[]; close(): Promise<void> }>;
  close(): Promise<void>;
}

/** A session to the gateway at `baseUrl` with a bearer `token` (who the tools are listed for). */
export async function connectViewHost(baseUrl: string, token: string): Promise<ViewHost> {
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'chart-view-host', version: '1.0.0' });
  await client.connect(transport);
  const tools = new Map(
    ((await client.listTools()).tools as McpTool[]).map((t) => [t.name, t] as const),
  );
  const uri = (tools.get('query_report_sales_by_region')!._meta!.ui as { resourceUri: string })
    .resourceUri;
  const read = await client.readResource({ uri });
  const [contents] = read.contents as Array<{ mimeType: string; text: string }>;
  const viewHtml = contents.text;
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
  const hostScript = bundled.outputFiles[0].text;

  async function open(browser: Browser, tool: string, result: unknown, theme = 'light') {
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

  return {
    client,
    tools,
    viewHtml,
    viewMimeType: contents.mimeType,
    open,
    async close() {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/** The View's state once it has drawn (or said why not), waiting for it as a user would. */
export async function viewState(
  page: Page,
  eventually: <T>(f: () => Promise<T>, o: { timeoutMs: number }) => Promise<T>,
): Promise<string | null> {
  const view = page.frameLocator('#view').locator('#view');
  return eventually(
    async () => {
      const s = await view.getAttribute('data-state');
      if (s === 'waiting' || s === null) throw new Error('the View has not drawn yet');
      return s;
    },
    { timeoutMs: 15_000 },
  );
}
