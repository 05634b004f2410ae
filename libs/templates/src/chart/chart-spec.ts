import type { ChartHint } from '../model/chart-hint';
import {
  categoryAxis,
  labelsFit,
  measureAxis,
  measureTooltip,
  textTooltip,
  timeAxis,
  timeGrain,
  timeLabel,
} from './chart-axes';
import {
  foldTail,
  frameFields,
  frameValues,
  NUMERIC,
  ORDER_KEY,
  scaleGroups,
  TEMPORAL,
} from './chart-frame';
import type { ChartColumn, ChartFieldInfo, FrameField } from './chart-frame';
import { tableView } from './chart-table';

export type { ChartColumn, ChartFieldInfo } from './chart-frame';
export { ORDER_KEY } from './chart-frame';

export const VEGA_LITE_SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
/** The key of a time category's label as its grain reads ("May 2025"), for tooltips. */
const TIME_LABEL_KEY = 't';
const WIDTH = 480;
const HEIGHT = 260;
const SMALL_HEIGHT = 180;

type Spec = Record<string, unknown>;

/**
 * A Vega-Lite spec that draws a result page as the report's chart, with the rows inline: a
 * client renders it as it is (vega-embed, the console, the MCP Apps View) and the gateway
 * renders it to SVG. What it promises (docs/report-authoring.md#charts):
 * - measures whose largest values differ by more than 10x never share a scale: each group of
 *   comparable measures gets its own chart, stacked and sharing the category axis;
 * - categories keep the report's row order (its ORDER BY is the author's intent);
 * - category labels are level when they fit, else cut, with the whole text in the tooltip;
 *   bars whose labels do not fit are drawn across (category on the vertical axis);
 * - time axes are labelled at the data's grain, in UTC; numbers by field type and `format`;
 * - titles are the fields' descriptions; past 12 categories the tail is folded into "other";
 * - no report text is a field reference or expression code: columns are keyed `f0`, `f1`...
 */
export function vegaLiteSpec(
  chart: ChartHint,
  columns: readonly ChartColumn[],
  rows: readonly Record<string, unknown>[],
  title: string,
  described: readonly ChartFieldInfo[] = [],
): Spec {
  const fields = frameFields(columns, described, chart.format);
  const base = { $schema: VEGA_LITE_SCHEMA, title, config: { view: { stroke: null } } };
  const x = chart.x === undefined ? undefined : fields.get(chart.x);
  const measures = (chart.y ?? []).flatMap((name) => fields.get(name) ?? []);
  if (chart.type === 'table' || !x || measures.length === 0)
    return {
      ...base,
      data: { values: frameValues(rows, fields), format: { parse: parseOf([...fields.values()]) } },
      ...tableView([...fields.values()], rows),
    };
  const temporal = TEMPORAL.has(x.type);
  const series = chart.series === undefined ? undefined : fields.get(chart.series);
  const shown =
    (chart.type === 'bar' || chart.type === 'pie') && !temporal && !series
      ? foldTail(
          rows,
          x.name,
          measures.map((m) => m.name),
        )
      : rows;
  const values = frameValues(shown, fields);
  const grain = temporal ? timeGrain(shown.map((r) => r[x.name])) : undefined;
  if (grain) values.forEach((v, i) => (v[TIME_LABEL_KEY] = timeLabel(shown[i][x.name], grain)));
  const parse = parseOf([...fields.values()], temporal ? x : undefined);
  const data = { values, format: { parse } };
  const category = categoryOf(x, shown, grain);
  // the category, its series, the measures drawn, then the row's other fields
  const drawn = new Set([x, series, ...measures]);
  const tooltip = [
    category.tooltip,
    ...(series ? [textTooltip(series)] : []),
    ...measures.map(measureTooltip),
    ...[...fields.values()]
      .filter((f) => !drawn.has(f))
      .map((f) => (NUMERIC.has(f.type) ? measureTooltip(f) : textTooltip(f))),
  ];
  if (chart.type === 'pie') return { ...base, data, ...pieView(x, measures[0], tooltip) };
  const horizontal = chart.type === 'bar' && !temporal && !category.fit;
  const groups = scaleGroups(
    shown,
    measures.map((m) => m.name),
  ).map((names) => names.map((n) => fields.get(n)!));
  const views = groups.map((group, i) =>
    measureView(chart, group, shown, {
      values,
      parse,
      category: category.encoding(horizontal, i === 0 || !horizontal, i === groups.length - 1),
      series,
      tooltip,
      horizontal,
      small: groups.length > 1,
    }),
  );
  if (views.length === 1) return { ...base, data, ...views[0] };
  // one chart per group of comparable measures, on the same categories in the same order
  return horizontal
    ? { ...base, data, hconcat: views, resolve: { scale: { x: 'independent', y: 'shared' } } }
    : { ...base, data, vconcat: views, resolve: { scale: { x: 'shared', y: 'independent' } } };
}

function parseOf(measures: readonly FrameField[], time?: FrameField): Record<string, string> {
  const parse: Record<string, string> = {};
  for (const m of measures) if (NUMERIC.has(m.type)) parse[m.key] = 'number';
  if (time) parse[time.key] = 'date';
  return parse;
}

interface Category {
  fit: boolean;
  tooltip: Spec;
  /** the category encoding of one view: its axis shown with labels or only shared */
  encoding(horizontal: boolean, labels: boolean, title: boolean): Spec;
}

function categoryOf(
  x: FrameField,
  rows: readonly Record<string, unknown>[],
  grain: ReturnType<typeof timeGrain> | undefined,
): Category {
  if (grain) {
    const axis = timeAxis(grain, rows.length);
    return {
      fit: true,
      tooltip: textTooltip(x, TIME_LABEL_KEY),
      encoding: (_h, _labels, title) => ({
        field: x.key,
        type: 'temporal',
        scale: { type: 'utc' },
        title: title ? x.title : null,
        axis: title ? axis : { ...axis, labels: false },
      }),
    };
  }
  const fit = labelsFit(rows.map((r) => String(r[x.name] ?? '')));
  return {
    fit,
    tooltip: textTooltip(x),
    encoding: (horizontal, labels, title) => ({
      field: x.key,
      type: 'nominal',
      // the report's row order, by a number each record carries (no value list in the spec)
      sort: { field: ORDER_KEY, op: 'min', order: 'ascending' },
      title: title || horizontal ? x.title : null,
      axis: labels ? categoryAxis(fit, horizontal) : { labels: false, ticks: false, title: null },
    }),
  };
}

interface ViewParts {
  values: readonly Record<string, unknown>[];
  parse: Record<string, string>;
  category: Spec;
  series?: FrameField;
  tooltip: Spec[];
  horizontal: boolean;
  small: boolean;
}

/** The bars, lines or areas of measures that share one scale. */
function measureView(
  chart: ChartHint,
  group: readonly FrameField[],
  rows: readonly Record<string, unknown>[],
  parts: ViewParts,
): Spec {
  const mark = {
    type: chart.type,
    tooltip: true,
    ...(chart.type === 'line' ? { point: true } : {}),
    ...(chart.type === 'area' ? { line: true, opacity: 0.6 } : {}),
  };
  const [value, category] = parts.horizontal ? ['x', 'y'] : ['y', 'x'];
  const size = parts.horizontal
    ? { width: parts.small ? 220 : WIDTH - 160, height: { step: 22 } }
    : { width: WIDTH, height: parts.small ? SMALL_HEIGHT : HEIGHT };
  const axis = measureAxis(group, rows);
  if (group.length === 1)
    return {
      ...size,
      mark,
      encoding: {
        [category]: parts.category,
        [value]: { field: group[0].key, type: 'quantitative', title: group[0].title, axis },
        ...(parts.series
          ? { color: { field: parts.series.key, type: 'nominal', title: parts.series.title } }
          : {}),
        tooltip: parts.tooltip,
      },
    };
  // comparable measures side by side (bars) or one line each, told apart by colour: the rows
  // are unfolded here, so a measure's title is a value of the data, never a name in the spec
  const long = parts.values.flatMap((record) =>
    group.map((m, i) => ({ ...record, m: m.title, mi: i, v: record[m.key] })),
  );
  const byMeasure = { field: 'mi', op: 'min', order: 'ascending' };
  return {
    ...size,
    data: { values: long, format: { parse: { ...parts.parse, v: 'number' } } },
    mark,
    encoding: {
      [category]: parts.category,
      [value]: { field: 'v', type: 'quantitative', title: null, axis },
      color: {
        field: 'm',
        type: 'nominal',
        title: null,
        sort: byMeasure,
        legend: { orient: 'top', labelLimit: 240 },
      },
      ...(chart.type === 'bar' ? { [`${category}Offset`]: { field: 'm', sort: byMeasure } } : {}),
      tooltip: parts.tooltip,
    },
  };
}

/** A pie: one slice per category, in the report's order, the legend naming them. */
function pieView(x: FrameField, measure: FrameField, tooltip: Spec[]): Spec {
  const byRow = { field: ORDER_KEY, op: 'min', order: 'ascending' };
  return {
    width: HEIGHT,
    height: HEIGHT,
    mark: { type: 'arc', tooltip: true },
    encoding: {
      theta: { field: measure.key, type: 'quantitative', title: measure.title, stack: true },
      color: {
        field: x.key,
        type: 'nominal',
        title: x.title,
        sort: byRow,
        legend: { labelLimit: 200 },
      },
      order: { field: ORDER_KEY, type: 'quantitative', sort: 'ascending' },
      tooltip,
    },
  };
}
