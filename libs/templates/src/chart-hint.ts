/** A report's chart hint and the names the MCP Apps View is known by (no imports: report.ts and chart.ts both need them). */
export const CHART_TYPES = ['bar', 'line', 'area', 'pie', 'table'] as const;

/** The MCP Apps View every report tool declares: one shared resource, versioned in its name. */
export const CHART_VIEW_URI = 'ui://report-tool-gateway/chart-view-v1.html';
/** Where a report tool's MCP definition carries its chart (hint or inferred) for the View. */
export const CHART_META_KEY = 'io.github.report-tool-gateway/chart';
export type ChartType = (typeof CHART_TYPES)[number];

/**
 * How a report's rows are best drawn: a hint in its metadata (`chart`), or, when absent, the
 * one `inferChart` reads off its output fields. `x` is the category or time axis (the slice
 * of a pie), `y` the measures, `series` an optional field that splits them into colours.
 */
export interface ChartHint {
  type: ChartType;
  x?: string;
  y?: string[];
  series?: string;
}
