/** A report's chart hint and the names the MCP Apps View is known by (no imports: report.ts and chart.ts both need them). */
export const CHART_TYPES = ['bar', 'line', 'area', 'pie', 'table'] as const;
/** How a measure's numbers read: money (USD), a fraction shown as a percentage, a count. */
export const NUMBER_FORMATS = ['currency', 'percent', 'integer', 'number'] as const;

/** The MCP Apps View every report tool declares: one shared resource, versioned in its name. */
export const CHART_VIEW_URI = 'ui://report-tool-gateway/chart-view-v1.html';
/** Where a report tool's MCP definition carries its chart (hint or inferred) for the View. */
export const CHART_META_KEY = 'io.github.report-tool-gateway/chart';
/** Where it carries its output fields' descriptions, which the View titles its axes with. */
export const CHART_FIELDS_META_KEY = 'io.github.report-tool-gateway/fields';
export type ChartType = (typeof CHART_TYPES)[number];
export type NumberFormat = (typeof NUMBER_FORMATS)[number];

/**
 * How a report's rows are best drawn: a hint in its metadata (`chart`), or, when absent, the
 * one `inferChart` reads off its output fields. `x` is the category or time axis (the slice
 * of a pie), `y` the measures, `series` an optional field that splits them into colours,
 * `format` how a numeric field's numbers read (by field name; default: by its type).
 */
export interface ChartHint {
  type: ChartType;
  x?: string;
  y?: string[];
  series?: string;
  format?: Record<string, NumberFormat>;
}
