import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CHART_VIEW_URI } from '@app/templates';
import { Injectable, Logger } from '@nestjs/common';

/** The MIME type MCP Apps hosts render as a View (`@modelcontextprotocol/ext-apps`). */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** Where `npm run build:chart-view` writes the View's one script (relative to the cwd). */
const VIEW_SCRIPT = 'apps/chart-view/dist/view.js';

export interface ViewResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
}

export interface ViewContents {
  uri: string;
  mimeType: string;
  text: string;
  _meta: Record<string, unknown>;
}

const LISTED: ViewResource = {
  uri: CHART_VIEW_URI,
  name: 'report-chart-view',
  title: 'Report chart',
  description: "Draws a report call's page as the report's chart with the table beside it",
  mimeType: MCP_APP_MIME_TYPE,
};

/**
 * The MCP Apps View of report tools (issue #33): one HTML page whose script was bundled at
 * build time (Vega, the extension's App class, the gateway's chart modules), served inline,
 * so the frame needs no network at all: the resource declares no CSP domain, and hosts apply
 * the extension's default policy (no connect-src, no remote script).
 */
@Injectable()
export class ChartViewResource {
  private readonly log = new Logger('ChartView');
  private html: string | null | undefined;

  /** What resources/list names: the View, when it is built. */
  list(): ViewResource[] {
    return this.page() === null ? [] : [LISTED];
  }

  /** The View's page, or undefined when the uri is not the View or it is not built. */
  read(uri: string): ViewContents | undefined {
    if (uri !== CHART_VIEW_URI) return undefined;
    const html = this.page();
    if (html === null) return undefined;
    return {
      uri: CHART_VIEW_URI,
      mimeType: MCP_APP_MIME_TYPE,
      text: html,
      _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
    };
  }

  /** The page, built once from the bundled script; null when the script was never built. */
  private page(): string | null {
    if (this.html !== undefined) return this.html;
    try {
      const script = readFileSync(path.resolve(VIEW_SCRIPT), 'utf8');
      this.html = viewPage(script);
    } catch {
      this.log.warn(`the chart View is not built (${VIEW_SCRIPT}); run npm run build`);
      this.html = null;
    }
    return this.html;
  }
}

/** The View's HTML around its script (a `</script` inside it is escaped so it cannot close). */
export function viewPage(script: string): string {
  const safe = script.replace(/<\/script/gi, '<\\/script');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Report chart</title>
<style>
:root { color-scheme: light dark; font-family: var(--font-sans, system-ui, sans-serif); }
body { margin: 0; padding: 8px; background: var(--color-background-primary, transparent);
  color: var(--color-text-primary, CanvasText); }
#view { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
#status { flex-basis: 100%; margin: 0; font-size: 13px; }
#status.error { color: #c0392b; }
#chart { flex: 0 1 auto; min-width: 0; max-width: 100%; overflow-x: auto; }
#table { flex: 1 1 240px; overflow: auto; max-height: 420px; font-size: 12px; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid rgba(127,127,127,.3); padding: 3px 6px; text-align: left; }
</style>
</head>
<body>
<div id="view" data-state="waiting"><p id="status" role="status"></p><div id="chart"></div><div id="table"></div></div>
<script>${safe}</script>
</body>
</html>
`;
}
