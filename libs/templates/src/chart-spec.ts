import type { ChartHint } from './chart';
import type { FieldType } from './report';

/** A result column as a report call returns it. */
export interface ChartColumn {
  name: string;
  type: string;
}

export const VEGA_LITE_SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

const NUMERIC = new Set(['integer', 'number']);
const TEMPORAL = new Set(['date', 'timestamp']);

function encodingType(type: string | undefined): 'quantitative' | 'temporal' | 'nominal' {
  if (type !== undefined && NUMERIC.has(type)) return 'quantitative';
  if (type !== undefined && TEMPORAL.has(type)) return 'temporal';
  return 'nominal';
}

/**
 * A Vega-Lite spec that draws a result page as the report's chart, with the rows inline: a
 * client renders it as it is (vega-embed, the console, the MCP Apps View) and the gateway
 * renders it to SVG. Numbers that came back as text (a bigint past 2^53) are parsed by Vega.
 */
export function vegaLiteSpec(
  chart: ChartHint,
  columns: readonly ChartColumn[],
  rows: readonly Record<string, unknown>[],
  title: string,
): Record<string, unknown> {
  const typeOf = new Map(columns.map((c) => [c.name, c.type as FieldType]));
  const parse: Record<string, string> = {};
  for (const c of columns) {
    if (NUMERIC.has(c.type)) parse[c.name] = 'number';
    else if (TEMPORAL.has(c.type)) parse[c.name] = 'date';
  }
  const base = {
    $schema: VEGA_LITE_SCHEMA,
    title,
    data: { values: rows, format: { parse } },
  };
  if (chart.type === 'table' || !chart.x || !chart.y || chart.y.length === 0)
    return { ...base, ...tableView(columns.map((c) => c.name)) };
  const y = chart.y;
  const x = { field: chart.x, type: encodingType(typeOf.get(chart.x)), title: chart.x };
  if (chart.type === 'pie')
    return {
      ...base,
      mark: { type: 'arc', tooltip: true },
      encoding: {
        theta: { field: y[0], type: 'quantitative', title: y[0] },
        color: { field: chart.x, type: 'nominal', title: chart.x },
      },
    };
  const mark = {
    type: chart.type,
    tooltip: true,
    ...(chart.type === 'line' ? { point: true } : {}),
  };
  if (y.length > 1)
    return {
      ...base,
      transform: [{ fold: y, as: ['measure', 'value'] }],
      mark,
      encoding: {
        x,
        y: { field: 'value', type: 'quantitative', title: y.join(', ') },
        color: { field: 'measure', type: 'nominal', title: 'measure' },
        ...(chart.type === 'bar' ? { xOffset: { field: 'measure' } } : {}),
      },
    };
  return {
    ...base,
    mark,
    encoding: {
      x,
      y: { field: y[0], type: 'quantitative', title: y[0] },
      ...(chart.series
        ? { color: { field: chart.series, type: 'nominal', title: chart.series } }
        : {}),
    },
  };
}

/** Vega-Lite has no table mark: one text column per field, rows numbered in order. */
function tableView(names: readonly string[]): Record<string, unknown> {
  return {
    transform: [{ window: [{ op: 'row_number', as: '__row' }] }],
    hconcat: names.map((name) => ({
      title: name,
      width: 110,
      mark: { type: 'text', align: 'left' },
      encoding: {
        text: { field: name, type: 'nominal' },
        y: { field: '__row', type: 'ordinal', axis: null },
      },
    })),
  };
}
