import {
  categoryLabels,
  drawnCategories,
  measuresPerScale,
  worstScaleRatio,
} from '../../../../test/support/chart-audit';
import type { ChartHint } from './chart';
import { tooltipTitle } from './chart-axes';
import { columnWidth } from './chart-table';
import { vegaLiteSpec } from './chart-spec';

type Row = Record<string, unknown>;
const SALES = [
  { name: 'region', type: 'string' },
  { name: 'order_count', type: 'integer' },
  { name: 'total_amount', type: 'number' },
];
const DESCRIBED = [
  { name: 'region', description: 'sales region' },
  { name: 'order_count', description: 'number of orders' },
  { name: 'total_amount', description: 'sum of order totals in USD' },
];
// ordered by the report (amount, descending), not alphabetically
const SALES_ROWS: Row[] = [
  { region: 'west', order_count: 12_500, total_amount: '6400000.50' },
  { region: 'east', order_count: 9_000, total_amount: 4_100_000 },
  { region: 'south', order_count: 3_000, total_amount: 1_300_000 },
  { region: 'north', order_count: 800, total_amount: 390_000 },
];
const bar = (y: string[], extra: Partial<ChartHint> = {}): ChartHint => ({
  type: 'bar',
  x: 'region',
  y,
  ...extra,
});

/** Every `field` the spec refers to, anywhere. */
function fieldRefs(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => fieldRefs(v, found));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (k === 'field' && typeof v === 'string') found.push(v);
      else if (k === 'fold' && Array.isArray(v)) found.push(...(v as string[]));
      else if (k !== 'values') fieldRefs(v, found);
    }
  return found;
}

describe('vegaLiteSpec: measures and scales', () => {
  it('never puts measures that differ by more than 10x on one scale: one chart per scale', () => {
    const spec = vegaLiteSpec(bar(['order_count', 'total_amount']), SALES, SALES_ROWS, 'Sales');
    expect(worstScaleRatio(spec)).toBeLessThanOrEqual(10);
    expect(measuresPerScale(spec).map((m) => [...m.keys()])).toEqual([
      ['Order_count'],
      ['Total_amount'],
    ]);
    // the two charts share the category axis, each has its own measure axis
    expect(spec.resolve).toEqual({ scale: { x: 'shared', y: 'independent' } });
  });

  it('keeps comparable measures on one scale, side by side, told apart by colour', () => {
    const rows = SALES_ROWS.map((r) => ({ ...r, order_count: Number(r.total_amount) / 3 }));
    const spec = vegaLiteSpec(bar(['total_amount', 'order_count']), SALES, rows, 'Sales');
    expect(measuresPerScale(spec).map((m) => [...m.keys()])).toEqual([
      ['Total_amount', 'Order_count'],
    ]);
    expect(spec.encoding).toMatchObject({
      color: { field: 'm', sort: { field: 'mi' } },
      xOffset: { field: 'm' },
    });
  });

  it('groups three measures by size: max with average, min alone', () => {
    const rows = [
      { region: 'east', avg: 680, min: 12, max: 2400 },
      { region: 'west', avg: 650, min: 14, max: 2300 },
    ];
    const columns = ['region', 'avg', 'min', 'max'].map((name, i) => ({
      name,
      type: i === 0 ? 'string' : 'number',
    }));
    const spec = vegaLiteSpec(bar(['avg', 'min', 'max']), columns, rows, 'AOV');
    expect(measuresPerScale(spec).map((m) => [...m.keys()])).toEqual([['Avg', 'Max'], ['Min']]);
    expect(worstScaleRatio(spec)).toBeLessThanOrEqual(10);
  });
});

describe('vegaLiteSpec: order, labels, other', () => {
  it("draws the categories in the rows' order, not alphabetically", () => {
    for (const y of [['total_amount'], ['order_count', 'total_amount']]) {
      const spec = vegaLiteSpec(bar(y), SALES, SALES_ROWS, 'Sales');
      for (const drawn of drawnCategories(spec))
        expect(drawn).toEqual(['west', 'east', 'south', 'north']);
    }
    const pie = vegaLiteSpec(bar(['total_amount'], { type: 'pie' }), SALES, SALES_ROWS, 'p');
    expect(pie.encoding).toMatchObject({ order: { field: 'o' }, color: { sort: { field: 'o' } } });
  });

  it('writes labels of 10 characters or fewer level when there are 12 or fewer', () => {
    const spec = vegaLiteSpec(bar(['total_amount']), SALES, SALES_ROWS, 'Sales');
    expect(categoryLabels(spec)).toEqual([
      { labels: ['west', 'east', 'south', 'north'], angle: 0 },
    ]);
  });

  it('draws long labels across (bars on their side), cut, the full text in the tooltip', () => {
    const rows = SALES_ROWS.map((r) => ({ ...r, region: `${String(r.region)} coast division` }));
    const spec = vegaLiteSpec(bar(['total_amount']), SALES, rows, 'Sales');
    const encoding = spec.encoding as Record<string, Record<string, unknown>>;
    expect(encoding.y).toMatchObject({ field: 'f0', type: 'nominal', axis: { labelAngle: 0 } });
    expect(encoding.x).toMatchObject({ field: 'f2', type: 'quantitative' });
    expect((encoding.y.axis as { labelLimit: number }).labelLimit).toBeGreaterThan(0);
    expect(encoding.tooltip).toContainEqual({ field: 'f0', type: 'nominal', title: 'Region' });
  });

  it('folds categories past 12 into "other", keeping the largest in the rows\' order', () => {
    const rows = Array.from({ length: 20 }, (_, i) => ({
      region: `r${i}`,
      order_count: 1,
      total_amount: i === 15 ? 1000 : 100 - i,
    }));
    const spec = vegaLiteSpec(bar(['total_amount', 'order_count']), SALES, rows, 'Many');
    const [drawn] = drawnCategories(spec);
    expect(drawn).toHaveLength(12);
    expect(drawn.slice(0, 11)).toEqual([...Array.from({ length: 10 }, (_, i) => `r${i}`), 'r15']);
    expect(drawn[11]).toBe('other (9)');
    const other = (spec.data as { values: Row[] }).values.at(-1)!;
    expect(other).toMatchObject({ f0: 'other (9)', f1: 9 });
    expect(other.f2).toBe([10, 11, 12, 13, 14, 16, 17, 18, 19].reduce((s, i) => s + 100 - i, 0));
  });
});

describe('vegaLiteSpec: time, numbers, titles', () => {
  const MONTHS = [
    { name: 'month', type: 'date' },
    { name: 'revenue', type: 'number' },
  ];
  it('labels a monthly axis with month names, ticked by month, in UTC', () => {
    const rows = Array.from({ length: 12 }, (_, i) => ({
      month: `2025-${String(i + 1).padStart(2, '0')}-01`,
      revenue: 1000 * (i + 1),
    }));
    const spec = vegaLiteSpec({ type: 'line', x: 'month', y: ['revenue'] }, MONTHS, rows, 'r');
    const x = (spec.encoding as Record<string, Record<string, unknown>>).x;
    expect(x).toMatchObject({
      type: 'temporal',
      scale: { type: 'utc' },
      axis: { labelAngle: 0, tickCount: { interval: 'month', step: 1 } },
    });
    expect(String((x.axis as { labelExpr: string }).labelExpr)).toContain("'%b'");
    const values = (spec.data as { values: Row[] }).values;
    expect(values[4].t).toBe('May 2025');
  });

  it('labels a daily axis with dates', () => {
    const rows = [
      { month: '2025-03-02', revenue: 1 },
      { month: '2025-03-03', revenue: 2 },
    ];
    const spec = vegaLiteSpec({ type: 'line', x: 'month', y: ['revenue'] }, MONTHS, rows, 'r');
    const x = (spec.encoding as Record<string, Record<string, unknown>>).x;
    expect(x.axis).toMatchObject({ format: '%b %-d', tickCount: { interval: 'day' } });
    expect((spec.data as { values: Row[] }).values[0].t).toBe('2025-03-02');
  });

  it.each([
    ['currency', '$.3~s', '$,.2f'],
    ['percent', '.0%', '.1%'],
    ['integer', '.3~s', ',d'],
  ] as const)('formats a %s measure on its axis and in its tooltip', (format, axis, tip) => {
    const spec = vegaLiteSpec(
      bar(['total_amount'], { format: { total_amount: format } }),
      SALES,
      SALES_ROWS,
      's',
    );
    const encoding = spec.encoding as Record<string, Record<string, unknown>>;
    expect(encoding.y.axis).toMatchObject({ format: axis });
    expect(encoding.tooltip).toContainEqual(expect.objectContaining({ field: 'f2', format: tip }));
  });

  it('formats by field type without a format: counts as integers', () => {
    const spec = vegaLiteSpec(bar(['order_count']), SALES, SALES_ROWS, 's');
    const encoding = spec.encoding as Record<string, Record<string, unknown>>;
    expect(encoding.tooltip).toContainEqual(expect.objectContaining({ field: 'f1', format: ',d' }));
  });

  it("titles axes with the fields' descriptions", () => {
    const spec = vegaLiteSpec(bar(['total_amount']), SALES, SALES_ROWS, 's', DESCRIBED);
    expect(spec.encoding).toMatchObject({
      x: { title: 'Sales region' },
      y: { title: 'Sum of order totals in USD' },
    });
  });
});

describe('vegaLiteSpec: field names are data', () => {
  const HOSTILE = ['r\\', 'a"b', 'c[0]', 'd.e', "it's", '}); throw 1; ({'];
  const columns = HOSTILE.map((name, i) => ({ name, type: i === 0 ? 'string' : 'number' }));
  const rows = [Object.fromEntries(HOSTILE.map((n, i) => [n, i === 0 ? 'x"\\' : i]))];

  it.each<ChartHint>([
    { type: 'bar', x: 'r\\', y: HOSTILE.slice(1) },
    { type: 'line', x: 'r\\', y: ['a"b'], series: 'c[0]' },
    { type: 'pie', x: 'r\\', y: ["it's"] },
    { type: 'table' },
  ])('refers to no field by its report name (%j)', (chart) => {
    const spec = vegaLiteSpec(chart, columns, rows, 't', [{ name: 'r\\', description: 'a\\"]' }]);
    for (const ref of fieldRefs(spec)) expect(ref).toMatch(/^(f\d+|o|m|mi|v|t)$/);
    for (const record of (spec.data as { values: Row[] }).values)
      for (const key of Object.keys(record)) expect(key).toMatch(/^(f\d+|o|t|m|mi|v)$/);
  });
});

describe('tooltip titles', () => {
  it.each(['R\\', 'a"b\\', 'line\nbreak', 'tab\there', '\\"); throw 1; ("', 'u\u2028'])(
    'reads %j back as itself once Vega-Lite has quoted it into an expression',
    (title) => {
      // Vega-Lite's own step: `"` becomes `\"` inside "..."; the result is a string literal
      const literal = `"${tooltipTitle(title).replace(/"/g, '\\"')}"`;
      expect(JSON.parse(literal)).toBe(title);
    },
  );
});

describe('table charts', () => {
  it('sizes each column to its longest text (title or cell), within bounds', () => {
    const field = { key: 'f0', name: 'name', type: 'string', title: 'Name' };
    const short = columnWidth(field, [{ name: 'ab' }]);
    const long = columnWidth(field, [{ name: 'Northwind Traders #1234' }]);
    expect(long).toBeGreaterThan(short);
    expect(columnWidth(field, [{ name: 'x'.repeat(500) }])).toBe(260);
    const money = { ...field, type: 'number', format: 'currency' as const };
    expect(columnWidth(money, [{ name: 1234567.5 }])).toBeGreaterThan(
      columnWidth({ ...field, type: 'number' }, [{ name: 1234567.5 }]),
    );
    const spec = vegaLiteSpec({ type: 'table' }, SALES, SALES_ROWS, 't', DESCRIBED);
    const columnsDrawn = spec.hconcat as Array<{ width: number; mark: { limit: number } }>;
    // a text is cut only past the widest a column gets, never inside a column sized for it
    for (const c of columnsDrawn) {
      expect(c.width).toBeLessThanOrEqual(260);
      expect(c.mark.limit).toBeGreaterThanOrEqual(c.width);
    }
  });
});
