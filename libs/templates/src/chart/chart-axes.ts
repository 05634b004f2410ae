import type { NumberFormat } from '../model/chart-hint';
import { MAX_CATEGORIES, magnitude } from './chart-frame';
import type { FrameField } from './chart-frame';

/** Labels this long or shorter, this many or fewer, are written level under their bar. */
export const LEVEL_LABEL_CHARS = 10;
/** A longer label is cut (with an ellipsis) at this width; its tooltip has the whole text. */
const LABEL_LIMIT_PX = 160;

/** How a field's numbers read: its chart hint's `format`, else its type's. */
export function numberFormatOf(field: FrameField): NumberFormat {
  return field.format ?? (field.type === 'integer' ? 'integer' : 'number');
}

/**
 * d3-format strings (the ones Vega uses) for an axis and for a tooltip. Axes of large values
 * use SI prefixes ("$6.4M", "12.5k") so their labels stay short; tooltips give the exact value.
 */
export function numberFormats(
  format: NumberFormat,
  largest: number,
): { axis: string; tooltip: string } {
  const large = largest >= 10_000;
  switch (format) {
    case 'currency':
      return { axis: large ? '$.3~s' : '$,.2~f', tooltip: '$,.2f' };
    case 'percent':
      return { axis: '.0%', tooltip: '.1%' };
    case 'integer':
      return { axis: large ? '.3~s' : ',d', tooltip: ',d' };
    case 'number':
      return { axis: large ? '.3~s' : ',.2~f', tooltip: ',.2~f' };
  }
}

/** The quantitative axis of measures sharing one scale: formatted by the first one's format. */
export function measureAxis(
  group: readonly FrameField[],
  rows: readonly Record<string, unknown>[],
): Record<string, unknown> {
  const largest = Math.max(0, ...group.map((f) => magnitude(rows, f.name)));
  return { format: numberFormats(numberFormatOf(group[0]), largest).axis, labelAngle: 0 };
}

/**
 * A title as a tooltip needs it. Vega-Lite writes tooltip titles as the keys of an object in
 * an expression, escaping a double quote but neither a backslash nor a line break (a field
 * named `r` and a backslash broke the expression): escaped here, the expression parser reads
 * the title back as the string literal it is, never as code.
 */
export function tooltipTitle(title: string): string {
  return title.replace(/[\\\u0000-\u001f\u2028\u2029]/g, (c) =>
    c === '\\' ? '\\\\' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A tooltip line for a text field: its title and its value. */
export function textTooltip(field: FrameField, key = field.key): Record<string, unknown> {
  return { field: key, type: 'nominal', title: tooltipTitle(field.title) };
}

/** A tooltip line for a measure: its title and its exact, formatted value. */
export function measureTooltip(field: FrameField): Record<string, unknown> {
  return {
    field: field.key,
    type: 'quantitative',
    title: tooltipTitle(field.title),
    format: numberFormats(numberFormatOf(field), 0).tooltip,
  };
}

export type TimeGrain = 'year' | 'month' | 'day' | 'time';

/** The grain of a date or time column, read off its values: all first-of-month: months. */
export function timeGrain(values: readonly unknown[]): TimeGrain {
  const dates = values
    .filter((v): v is string | number => typeof v === 'string' || typeof v === 'number')
    .map((v) => new Date(v))
    .filter((d) => !Number.isNaN(d.getTime()));
  if (dates.some((d) => d.getTime() % 86_400_000 !== 0)) return 'time';
  if (dates.some((d) => d.getUTCDate() !== 1)) return 'day';
  if (dates.some((d) => d.getUTCMonth() !== 0)) return 'month';
  return dates.length > 0 ? 'year' : 'day';
}

const GRAIN_FORMAT: Record<TimeGrain, { axis: string; interval: string }> = {
  year: { axis: '%Y', interval: 'year' },
  month: { axis: '%b %Y', interval: 'month' },
  day: { axis: '%b %-d', interval: 'day' },
  time: { axis: '%b %-d %H:%M', interval: 'hour' },
};

const MONTH_LABELS =
  "utcFormat(datum.value, datum.index === 0 || utcmonth(datum.value) === 0 ? '%b %Y' : '%b')";

/** A time axis in UTC (dates are calendar days), ticked and labelled at the data's grain. */
export function timeAxis(grain: TimeGrain, points: number): Record<string, unknown> {
  const { axis, interval } = GRAIN_FORMAT[grain];
  const step = Math.max(1, Math.ceil(points / MAX_CATEGORIES));
  return {
    format: axis,
    // months read "Jan 2025, Feb, Mar ...": the year on the first tick and on each January
    ...(grain === 'month' ? { labelExpr: MONTH_LABELS } : {}),
    labelAngle: 0,
    labelOverlap: true,
    grid: false,
    ...(grain === 'time' ? {} : { tickCount: { interval, step } }),
  };
}

/** A date as its grain reads in a tooltip: "May 2025", "2025-05-14". */
export function timeLabel(value: unknown, grain: TimeGrain): string {
  if (typeof value !== 'string' && typeof value !== 'number') return '';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  const iso = d.toISOString();
  switch (grain) {
    case 'year':
      return iso.slice(0, 4);
    case 'month':
      return d.toLocaleString('en-US', { month: 'short', year: 'numeric', timeZone: 'UTC' });
    case 'day':
      return iso.slice(0, 10);
    case 'time':
      return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
  }
}

/** Whether category labels fit level under their bars. */
export function labelsFit(labels: readonly string[]): boolean {
  return (
    new Set(labels).size <= MAX_CATEGORIES && labels.every((l) => l.length <= LEVEL_LABEL_CHARS)
  );
}

/** A category axis: level when its labels fit, else slanted and cut (tooltip: full text). */
export function categoryAxis(fit: boolean, horizontal = false): Record<string, unknown> {
  if (fit || horizontal) return { labelAngle: 0, labelLimit: LABEL_LIMIT_PX };
  return { labelAngle: -40, labelAlign: 'right', labelLimit: 90 };
}
