import { numberFormatOf, numberFormats, textTooltip, tooltipTitle } from './chart-axes';
import { NUMERIC, ORDER_KEY } from './chart-frame';
import type { FrameField } from './chart-frame';

/**
 * A generous width of one character of Vega's default 11 px sans-serif text (DejaVu Sans,
 * a wide face, where a browser or an SVG viewer draws it), and of the bold column titles.
 * Vega cuts a text only past `limit`, which it measures (without a canvas) at 0.8 em per
 * character: cells are cut only at MAX_COLUMN_PX, never inside a column sized for them.
 */
const CHAR_PX = 7.5;
const TITLE_CHAR_PX = 8.2;
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
        title: {
          text: f.title,
          anchor: numeric ? 'end' : 'start',
          fontSize: 11,
          limit: MAX_COLUMN_PX,
        },
        width,
        height: { step: ROW_PX },
        mark: {
          type: 'text',
          align: numeric ? 'right' : 'left',
          x: numeric ? width : 0,
          limit: MAX_COLUMN_PX,
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
                title: tooltipTitle(f.title),
                format: numberFormats(numberFormatOf(f), 0).tooltip,
              }
            : textTooltip(f),
        },
      };
    }),
  };
}
