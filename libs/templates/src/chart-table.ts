import { numberFormatOf, numberFormats } from './chart-axes';
import { NUMERIC, ORDER_KEY } from './chart-frame';
import type { FrameField } from './chart-frame';

/** About the width of one character of Vega's default 11 px sans-serif text. */
const CHAR_PX = 6.6;
/** ... and of the bold column titles. */
const TITLE_CHAR_PX = 7.4;
const MIN_COLUMN_PX = 40;
/** A column no wider than this: a longer cell is cut with an ellipsis (its tooltip: all). */
const MAX_COLUMN_PX = 260;
const ROW_PX = 18;

/** How wide a column's text is drawn: the widest of its title and its cells, within bounds. */
export function columnWidth(field: FrameField, rows: readonly Record<string, unknown>[]): number {
  let px = field.title.length * TITLE_CHAR_PX;
  for (const row of rows) {
    const value = row[field.name];
    if (value !== null && value !== undefined)
      px = Math.max(px, cellText(field, value).length * CHAR_PX);
  }
  return Math.round(Math.min(MAX_COLUMN_PX, Math.max(MIN_COLUMN_PX, px + 8)));
}

/** How wide a number reads once formatted with thousands separators (and a $ or %). */
function cellText(field: FrameField, value: unknown): string {
  if (!NUMERIC.has(field.type)) return String(value);
  const n = Number(value);
  if (!Number.isFinite(n)) return String(value);
  const format = numberFormatOf(field);
  const fixed =
    format === 'percent' ? (n * 100).toFixed(1) + '%' : n.toFixed(format === 'integer' ? 0 : 2);
  const grouped = fixed.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return format === 'currency' ? `$${grouped}` : grouped;
}

/**
 * Vega-Lite has no table mark: one text column per field, each as wide as its text (cut at
 * MAX_COLUMN_PX with an ellipsis), numbers right-aligned and formatted, rows in the report's
 * order.
 */
export function tableView(
  fields: readonly FrameField[],
  rows: readonly Record<string, unknown>[],
): Record<string, unknown> {
  return {
    spacing: 12,
    hconcat: fields.map((f) => {
      const numeric = NUMERIC.has(f.type);
      const width = columnWidth(f, rows);
      return {
        title: { text: f.title, anchor: numeric ? 'end' : 'start', fontSize: 11, limit: width },
        width,
        height: { step: ROW_PX },
        mark: {
          type: 'text',
          align: numeric ? 'right' : 'left',
          x: numeric ? width : 0,
          limit: width,
          tooltip: true,
        },
        encoding: {
          text: numeric
            ? {
                field: f.key,
                type: 'quantitative',
                format: numberFormats(numberFormatOf(f), 0).tooltip,
              }
            : { field: f.key, type: 'nominal' },
          y: { field: ORDER_KEY, type: 'ordinal', axis: null },
          tooltip: numeric
            ? {
                field: f.key,
                type: 'quantitative',
                title: f.title,
                format: numberFormats(numberFormatOf(f), 0).tooltip,
              }
            : { field: f.key, type: 'nominal', title: f.title },
        },
      };
    }),
  };
}
