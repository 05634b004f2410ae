// The MCP Apps View of report tools (issue #33): draws a report call's page as the report's
// chart with the table beside it, inside the chat client's sandboxed frame. Bundled at build
// time into one script the gateway serves inline (ui://report-tool-gateway/chart-view-v1.html):
// no remote script, no network request, no eval (Vega runs its CSP-safe interpreter).
import { App, applyDocumentTheme, applyHostStyleVariables } from '@modelcontextprotocol/ext-apps';
import type { McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import embed from 'vega-embed';
import { expressionInterpreter } from 'vega-interpreter';
import {
  CHART_FIELDS_META_KEY,
  CHART_META_KEY,
  inferChart,
} from '../../../libs/templates/src/chart/chart';
import type { ChartHint } from '../../../libs/templates/src/chart/chart';
import { vegaLiteSpec } from '../../../libs/templates/src/chart/chart-spec';
import type { ChartColumn, ChartFieldInfo } from '../../../libs/templates/src/chart/chart-spec';
import type { FieldType } from '../../../libs/templates/src/model/report';

interface Page {
  columns: ChartColumn[];
  rows: Record<string, unknown>[];
  page: number;
  page_size: number;
  has_more: boolean;
}

interface ToolResult {
  isError?: boolean;
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
}

const root = document.getElementById('view')!;
const status = document.getElementById('status')!;
const chartBox = document.getElementById('chart')!;
const tableBox = document.getElementById('table')!;
let hint: ChartHint | undefined;
let described: ChartFieldInfo[] = [];
let dark = false;
let last: ToolResult | undefined;

function say(text: string, kind: 'info' | 'error' = 'info'): void {
  status.textContent = text;
  status.className = kind;
}

function isPage(value: unknown): value is Page {
  const p = value as Page | null;
  return (
    typeof p === 'object' &&
    p !== null &&
    Array.isArray(p.columns) &&
    Array.isArray(p.rows) &&
    typeof p.page === 'number'
  );
}

/** A cell as the chart reads it: numbers by their field's format (the hint's, else its type's). */
function cellText(value: unknown, column: ChartColumn): string {
  if (value === null || value === undefined) return '';
  const n = typeof value === 'number' ? value : Number(value);
  if ((column.type !== 'integer' && column.type !== 'number') || !Number.isFinite(n))
    return String(value);
  const format = hint?.format?.[column.name] ?? (column.type === 'integer' ? 'integer' : 'number');
  const options: Intl.NumberFormatOptions =
    format === 'currency'
      ? { style: 'currency', currency: 'USD' }
      : format === 'percent'
        ? { style: 'percent', maximumFractionDigits: 1 }
        : { maximumFractionDigits: format === 'integer' ? 0 : 2 };
  return new Intl.NumberFormat('en-US', options).format(n);
}

function drawTable(page: Page): void {
  const table = document.createElement('table');
  const head = table.createTHead().insertRow();
  for (const c of page.columns) {
    const th = document.createElement('th');
    th.textContent = c.name;
    if (c.type === 'integer' || c.type === 'number') th.style.textAlign = 'right';
    head.appendChild(th);
  }
  const body = table.createTBody();
  for (const row of page.rows) {
    const tr = body.insertRow();
    for (const c of page.columns) {
      const cell = tr.insertCell();
      cell.textContent = cellText(row[c.name], c);
      if (c.type === 'integer' || c.type === 'number') cell.style.textAlign = 'right';
    }
  }
  tableBox.replaceChildren(table);
}

async function draw(result: ToolResult): Promise<void> {
  last = result;
  chartBox.replaceChildren();
  tableBox.replaceChildren();
  if (result.isError) {
    const text = (result.content ?? []).map((c) => c.text ?? '').join('\n');
    say(`The report refused the call: ${text}`, 'error');
    root.dataset.state = 'error';
    return;
  }
  const page = result.structuredContent;
  if (!isPage(page)) {
    say('This result has no rows to draw.');
    root.dataset.state = 'no-rows';
    return;
  }
  if (page.rows.length === 0) {
    say('No rows match these filters.');
    root.dataset.state = 'empty';
    return;
  }
  const fields = page.columns.map((c) => ({
    name: c.name,
    type: c.type as FieldType,
    description: '',
  }));
  const chart = hint ?? inferChart(fields);
  say(
    page.has_more
      ? `Page ${page.page}: the first ${page.rows.length} rows; more pages exist (ask for page ${page.page + 1}).`
      : `${page.rows.length} ${page.rows.length === 1 ? 'row' : 'rows'}.`,
  );
  drawTable(page);
  if (chart.type !== 'table') {
    const spec = vegaLiteSpec(chart, page.columns, page.rows, '', described);
    await embed(chartBox, spec as never, {
      renderer: 'svg',
      actions: false,
      ast: true,
      expr: expressionInterpreter,
      theme: dark ? 'dark' : undefined,
      config: { background: 'transparent' },
    });
  }
  root.dataset.state = 'drawn';
  root.dataset.chart = chart.type;
}

function follow(context: McpUiHostContext | undefined): void {
  if (!context) return;
  if (context.theme) {
    applyDocumentTheme(context.theme);
    dark = context.theme === 'dark';
  }
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
  const meta = (context.toolInfo?.tool as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const declared = meta?.[CHART_META_KEY];
  if (declared && typeof declared === 'object') hint = declared as ChartHint;
  const fields = meta?.[CHART_FIELDS_META_KEY];
  if (Array.isArray(fields))
    described = fields.filter(
      (f): f is ChartFieldInfo =>
        typeof (f as ChartFieldInfo | null)?.name === 'string' &&
        typeof ((f as ChartFieldInfo).description ?? '') === 'string',
    );
}

const app = new App({ name: 'report-tool-gateway-chart-view', version: '1.0.0' });
app.ontoolresult = (result) => {
  void draw(result as ToolResult).catch((err: unknown) =>
    say(`The chart could not be drawn: ${String(err)}`, 'error'),
  );
};
app.onhostcontextchanged = (context) => {
  follow({ ...app.getHostContext(), ...context });
  if (last) void draw(last);
};
say('Waiting for the report…');
void app.connect().then(
  () => follow(app.getHostContext()),
  (err: unknown) => say(`Not connected to the chat client: ${String(err)}`, 'error'),
);
