import { chartOf, vegaLiteSpec } from '@app/templates';
import type { ChartHint, ReportField } from '@app/templates';
import { categoryLabels, drawnCategories, worstScaleRatio } from '../../test/support/chart-audit';
import { DEMO_REPORTS } from './demo-catalog';
import { DEMO_CHARTS } from './demo-chart-hints';

/**
 * Every demo report's chart, drawn from rows shaped like its own (#40): its categories in an
 * order that is not alphabetical, and measures each 100x the previous one, the worst case
 * for sharing a scale. The e2e test (test/e2e/charts.e2e-spec.ts) does the same over the
 * seeded data.
 */
function rowsFor(fields: readonly ReportField[], categories: readonly string[]) {
  return categories.map((label, i) => {
    let scale = 1;
    const row: Record<string, unknown> = {};
    for (const f of fields) {
      if (f.type === 'integer' || f.type === 'number') {
        row[f.name] = scale * (categories.length - i);
        scale *= 100;
      } else if (f.type === 'date' || f.type === 'timestamp') {
        row[f.name] = `2025-${String((i % 12) + 1).padStart(2, '0')}-01`;
      } else row[f.name] = label;
    }
    return row;
  });
}

const SHORT = ['west', 'north', 'east', 'south', 'central', 'overseas'];
const reports = DEMO_REPORTS.map((r) => {
  const fields: ReportField[] = r.fields.map(([name, type, description]) => ({
    name,
    type,
    description,
  }));
  return {
    id: r.id,
    fields,
    chart: chartOf({ chart: DEMO_CHARTS[r.id] as ChartHint | undefined, fields }),
  };
});

describe.each(reports)('the demo report $id', ({ fields, chart }) => {
  const draw = (rows: Record<string, unknown>[]) =>
    vegaLiteSpec(
      chart,
      fields.map((f) => ({ name: f.name, type: f.type })),
      rows,
      'demo',
      fields,
    );

  it('puts no two measures that differ by more than 10x on one scale', () => {
    expect(worstScaleRatio(draw(rowsFor(fields, SHORT)))).toBeLessThanOrEqual(10);
  });

  it("keeps the rows' order and writes short labels level", () => {
    const spec = draw(rowsFor(fields, SHORT));
    const categorical = chart.type !== 'table' && chart.x !== undefined;
    const x = fields.find((f) => f.name === chart.x);
    if (!categorical || x?.type !== 'string') return;
    const drawn = drawnCategories(spec);
    expect(drawn.length).toBeGreaterThan(0);
    for (const order of drawn) expect(order).toEqual(SHORT);
    for (const axis of categoryLabels(spec)) expect(axis.angle).toBe(0);
  });
});

it('draws top_customers, the ranked demo report, as bars in the ranking', () => {
  const report = reports.find((r) => r.id === 'top_customers')!;
  expect(report.chart.type).toBe('bar');
  const ranked = ['Contoso Logistics #1', 'Initech Energy #2', 'Umbrella Foods #3', 'Hooli #4'];
  const spec = vegaLiteSpec(
    report.chart,
    report.fields.map((f) => ({ name: f.name, type: f.type })),
    rowsFor(report.fields, ranked),
    'Top customers',
    report.fields,
  );
  expect(drawnCategories(spec)).toEqual([ranked]);
  // longer than 10 characters: across, level, cut at a width, whole in the tooltip
  expect(categoryLabels(spec)).toEqual([{ labels: ranked, angle: 0 }]);
});
