import type { TemplateProblem } from '../errors';
import {
  CHART_FIELDS_META_KEY,
  CHART_META_KEY,
  CHART_TYPES,
  CHART_VIEW_URI,
  NUMBER_FORMATS,
} from '../model/chart-hint';
import type { ChartHint } from '../model/chart-hint';
import type { FieldType, ReportField } from '../model/report';

export {
  CHART_FIELDS_META_KEY,
  CHART_META_KEY,
  CHART_TYPES,
  CHART_VIEW_URI,
  NUMBER_FORMATS,
} from '../model/chart-hint';
export type { ChartHint, ChartType, NumberFormat } from '../model/chart-hint';

const NUMERIC: readonly FieldType[] = ['integer', 'number'];
const TEMPORAL: readonly FieldType[] = ['date', 'timestamp'];
const MAX_MEASURES = 10;

/** Why a chart hint does not fit the report's output fields, each naming its part. */
export function chartProblems(chart: unknown, fields: readonly ReportField[]): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  const add = (message: string) => problems.push({ rule: 'chart', message });
  if (typeof chart !== 'object' || chart === null || Array.isArray(chart)) {
    add('chart must be an object like {"type": "bar", "x": "<field>", "y": ["<field>"]}');
    return problems;
  }
  const hint = chart as Record<string, unknown>;
  const extra = Object.keys(hint).filter(
    (k) => !['type', 'x', 'y', 'series', 'format'].includes(k),
  );
  if (extra.length > 0) add(`chart has unknown properties: ${extra.join(', ')}`);
  if (!(CHART_TYPES as readonly unknown[]).includes(hint.type)) {
    add(`chart.type must be one of ${CHART_TYPES.join(', ')}; got ${JSON.stringify(hint.type)}`);
    return problems;
  }
  const byName = new Map(fields.map((f) => [f.name, f]));
  const field = (path: string, value: unknown): ReportField | undefined => {
    if (typeof value !== 'string') {
      add(`${path} must be the name of an output field`);
      return undefined;
    }
    const found = byName.get(value);
    if (!found)
      add(
        `${path} "${value}" is not an output field of the report (fields: ${[...byName.keys()].join(', ') || 'none'})`,
      );
    return found;
  };
  formatProblems(hint.format, byName, add);
  if (hint.type === 'table') {
    if (hint.x !== undefined) field('chart.x', hint.x);
    if (Array.isArray(hint.y)) hint.y.forEach((y, i) => field(`chart.y.${i}`, y));
    return problems;
  }
  if (hint.x === undefined) add(`chart.x is required for a ${String(hint.type)} chart`);
  else field('chart.x', hint.x);
  if (!Array.isArray(hint.y) || hint.y.length === 0 || hint.y.length > MAX_MEASURES) {
    add(`chart.y must list 1 to ${MAX_MEASURES} numeric output fields`);
  } else {
    hint.y.forEach((y, i) => {
      const measure = field(`chart.y.${i}`, y);
      if (measure && !NUMERIC.includes(measure.type))
        add(
          `chart.y.${i} "${measure.name}" must be numeric (integer or number), not ${measure.type}`,
        );
    });
    if (hint.type === 'pie' && hint.y.length !== 1) add('chart.y of a pie chart names one field');
  }
  if (hint.series !== undefined) {
    field('chart.series', hint.series);
    if (hint.type === 'pie') add('chart.series does not apply to a pie chart');
  }
  return problems;
}

/** `format` maps numeric output fields to one of NUMBER_FORMATS. */
function formatProblems(
  format: unknown,
  byName: ReadonlyMap<string, ReportField>,
  add: (message: string) => void,
): void {
  if (format === undefined) return;
  if (typeof format !== 'object' || format === null || Array.isArray(format)) {
    add('chart.format must be an object like {"<field>": "currency"}');
    return;
  }
  for (const [name, value] of Object.entries(format)) {
    const path = `chart.format[${JSON.stringify(name)}]`;
    const target = byName.get(name);
    if (!target) add(`${path}: ${JSON.stringify(name)} is not an output field of the report`);
    else if (!NUMERIC.includes(target.type))
      add(`${path}: "${name}" is ${target.type}, and only numeric fields take a format`);
    if (!(NUMBER_FORMATS as readonly unknown[]).includes(value))
      add(`${path} must be one of ${NUMBER_FORMATS.join(', ')}; got ${JSON.stringify(value)}`);
  }
}

/**
 * The chart a report without a hint gets: a date or time field and numbers draw a line over
 * time; one text category and numbers draw bars; anything else is a table. Identifiers
 * (`id`, `*_id`) are not measures.
 */
export function inferChart(fields: readonly ReportField[]): ChartHint {
  // an identifier (`id`, `order_id`) is a number but not a measure
  const measures = fields
    .filter((f) => NUMERIC.includes(f.type) && !/(^|_)id$/.test(f.name))
    .map((f) => f.name);
  const time = fields.find((f) => TEMPORAL.includes(f.type));
  const categories = fields.filter((f) => f.type === 'string');
  if (measures.length === 0) return { type: 'table' };
  const y = measures.slice(0, MAX_MEASURES);
  if (time) {
    return {
      type: 'line',
      x: time.name,
      y,
      ...(categories.length === 1 && y.length === 1 ? { series: categories[0].name } : {}),
    };
  }
  if (categories.length === 1) return { type: 'bar', x: categories[0].name, y };
  return { type: 'table' };
}

/** The chart of a report: its hint, else the inferred one. */
export function chartOf(report: { chart?: ChartHint; fields: readonly ReportField[] }): ChartHint {
  return report.chart ?? inferChart(report.fields);
}

/**
 * The `_meta` of a report tool's MCP definition: the MCP Apps View that draws its results
 * (`ui.resourceUri`, and the flat key hosts of the extension's first draft read) and the
 * chart it draws. Clients without the extension ignore it.
 */
export function reportToolMeta(report: {
  chart?: ChartHint;
  fields: readonly ReportField[];
}): Record<string, unknown> {
  return {
    ui: { resourceUri: CHART_VIEW_URI },
    'ui/resourceUri': CHART_VIEW_URI,
    [CHART_META_KEY]: chartOf(report),
    [CHART_FIELDS_META_KEY]: report.fields.map((f) => ({
      name: f.name,
      description: f.description,
    })),
  };
}
