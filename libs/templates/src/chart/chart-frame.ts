import type { NumberFormat } from '../model/chart-hint';

/** A result column as a report call returns it. */
export interface ChartColumn {
  name: string;
  type: string;
}

/** What a report says about an output field: its description titles the axis. */
export interface ChartFieldInfo {
  name: string;
  description?: string;
}

/**
 * A column as the spec refers to it. `key` is a name the spec builder makes up (`f0`, `f1`,
 * ...): a report's field name is data, and Vega-Lite reads `.`, `[` and `\` in a field name
 * as a path and copies it into expression code, so no report text is ever a field reference.
 */
export interface FrameField {
  key: string;
  name: string;
  type: string;
  title: string;
  format?: NumberFormat;
}

/** The row-order key: every record carries its row's position in the report's own order. */
export const ORDER_KEY = 'o';
/** More categories than this are drawn as the first ones and one "other" bar or slice. */
export const MAX_CATEGORIES = 12;

export const NUMERIC = new Set(['integer', 'number']);
export const TEMPORAL = new Set(['date', 'timestamp']);

/** "sum of order totals in USD" -> "Sum of order totals in USD"; no description: the name. */
function titleOf(name: string, description: string | undefined): string {
  const text = description?.trim() || name;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function frameFields(
  columns: readonly ChartColumn[],
  info: readonly ChartFieldInfo[],
  formats: Readonly<Record<string, NumberFormat>> = {},
): Map<string, FrameField> {
  const described = new Map(info.map((f) => [f.name, f.description]));
  const fields = new Map<string, FrameField>();
  columns.forEach((c, i) => {
    const format = Object.prototype.hasOwnProperty.call(formats, c.name)
      ? formats[c.name]
      : undefined;
    fields.set(c.name, {
      key: `f${i}`,
      name: c.name,
      type: c.type,
      title: titleOf(c.name, described.get(c.name)),
      ...(format ? { format } : {}),
    });
  });
  return fields;
}

/** A cell as a number (a bigint past 2^53 comes back as text); not a number: undefined. */
export function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** The rows keyed by the fields' made-up keys, each with its position in the report's order. */
export function frameValues(
  rows: readonly Record<string, unknown>[],
  fields: ReadonlyMap<string, FrameField>,
): Record<string, unknown>[] {
  return rows.map((row, i) => {
    const record: Record<string, unknown> = { [ORDER_KEY]: i };
    for (const f of fields.values()) record[f.key] = row[f.name] ?? null;
    return record;
  });
}

/**
 * Too many categories for one picture: the `MAX_CATEGORIES - 1` largest by the first measure
 * stay, in the report's order (a ranked report keeps its first rows), and the rest become one
 * "other (n)" row whose measures are the sums of theirs. Rows that fit are returned as they are.
 */
export function foldTail(
  rows: readonly Record<string, unknown>[],
  category: string,
  measures: readonly string[],
): Record<string, unknown>[] {
  if (rows.length <= MAX_CATEGORIES) return [...rows];
  const primary = measures[0];
  const ranked = rows
    .map((row, i) => ({ i, value: numberOf(row[primary]) ?? -Infinity }))
    .sort((a, b) => b.value - a.value || a.i - b.i);
  const kept = new Set(ranked.slice(0, MAX_CATEGORIES - 1).map((r) => r.i));
  const rest = rows.filter((_, i) => !kept.has(i));
  const other: Record<string, unknown> = { [category]: `other (${rest.length})` };
  for (const m of measures) other[m] = rest.reduce((sum, row) => sum + (numberOf(row[m]) ?? 0), 0);
  return [...rows.filter((_, i) => kept.has(i)), other];
}

/** The largest absolute value of a column; 0 when it has none. */
export function magnitude(rows: readonly Record<string, unknown>[], name: string): number {
  let max = 0;
  for (const row of rows) max = Math.max(max, Math.abs(numberOf(row[name]) ?? 0));
  return max;
}

/**
 * Measures that may share a scale: within a group the largest is at most 10 times any other,
 * so no measure is flattened against the axis of a bigger one. A measure that is all zero (or
 * empty) joins the first group. The group holding the first measure comes first.
 */
export function scaleGroups(
  rows: readonly Record<string, unknown>[],
  measures: readonly string[],
): string[][] {
  const sized = measures
    .map((name, i) => ({ name, i, max: magnitude(rows, name) }))
    .sort((a, b) => b.max - a.max || a.i - b.i);
  const groups: Array<{ top: number; members: typeof sized }> = [];
  for (const m of sized) {
    const fits = groups.find((g) => m.max === 0 || g.top <= 10 * m.max);
    if (fits) fits.members.push(m);
    else groups.push({ top: m.max, members: [m] });
  }
  return groups
    .map((g) => g.members.sort((a, b) => a.i - b.i))
    .sort((a, b) => a[0].i - b[0].i)
    .map((g) => g.map((m) => m.name));
}
