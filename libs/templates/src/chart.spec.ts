import { chartOf, chartProblems, inferChart } from './chart';
import { vegaLiteSpec } from './chart-spec';
import type { ReportField } from './report';

const field = (name: string, type: ReportField['type']): ReportField => ({
  name,
  type,
  description: '',
});
const FIELDS = [
  field('region', 'string'),
  field('day', 'date'),
  field('orders', 'integer'),
  field('revenue', 'number'),
];
const messages = (chart: unknown) => chartProblems(chart, FIELDS).map((p) => p.message);

describe('chart hints', () => {
  it('accepts hints that fit the output fields', () => {
    expect(messages({ type: 'bar', x: 'region', y: ['revenue'] })).toEqual([]);
    expect(
      messages({ type: 'line', x: 'day', y: ['orders', 'revenue'], series: 'region' }),
    ).toEqual([]);
    expect(messages({ type: 'pie', x: 'region', y: ['revenue'] })).toEqual([]);
    expect(messages({ type: 'table' })).toEqual([]);
  });

  it.each([
    [
      { type: 'donut', x: 'region', y: ['revenue'] },
      'chart.type must be one of bar, line, area, pie, table; got "donut"',
    ],
    [
      { type: 'bar', x: 'country', y: ['revenue'] },
      'chart.x "country" is not an output field of the report (fields: region, day, orders, revenue)',
    ],
    [{ type: 'bar', y: ['revenue'] }, 'chart.x is required for a bar chart'],
    [
      { type: 'bar', x: 'region', y: ['region'] },
      'chart.y.0 "region" must be numeric (integer or number), not string',
    ],
    [{ type: 'bar', x: 'region', y: [] }, 'chart.y must list 1 to 10 numeric output fields'],
    [
      { type: 'line', x: 'day', y: ['revenue'], series: 'channel' },
      'chart.series "channel" is not an output field',
    ],
    [
      { type: 'pie', x: 'region', y: ['orders', 'revenue'] },
      'chart.y of a pie chart names one field',
    ],
    [
      { type: 'bar', x: 'region', y: ['revenue'], colour: 'red' },
      'chart has unknown properties: colour',
    ],
    ['bar', 'chart must be an object'],
    [{ type: 'bar', x: 3, y: ['revenue'] }, 'chart.x must be the name of an output field'],
  ])('refuses %j, naming the part', (chart, says) => {
    expect(messages(chart).join('; ')).toContain(says);
  });

  it('infers a line over time, bars over one category, else a table', () => {
    expect(inferChart(FIELDS)).toEqual({ type: 'line', x: 'day', y: ['orders', 'revenue'] });
    expect(
      inferChart([field('day', 'date'), field('region', 'string'), field('n', 'integer')]),
    ).toEqual({
      type: 'line',
      x: 'day',
      y: ['n'],
      series: 'region',
    });
    expect(inferChart([field('region', 'string'), field('revenue', 'number')])).toEqual({
      type: 'bar',
      x: 'region',
      y: ['revenue'],
    });
    expect(inferChart([field('a', 'string'), field('b', 'string'), field('n', 'integer')])).toEqual(
      {
        type: 'table',
      },
    );
    expect(inferChart([field('a', 'string')])).toEqual({ type: 'table' });
  });

  it('uses the hint when there is one', () => {
    expect(
      chartOf({ chart: { type: 'pie', x: 'region', y: ['orders'] }, fields: FIELDS }).type,
    ).toBe('pie');
    expect(chartOf({ fields: FIELDS }).type).toBe('line');
  });
});

describe('vegaLiteSpec', () => {
  const columns = FIELDS.map((f) => ({ name: f.name, type: f.type }));
  const rows = [{ region: 'east', day: '2026-01-01', orders: '9007199254740993', revenue: 10.5 }];

  it('draws one measure with the rows inline, numbers and dates parsed', () => {
    const spec = vegaLiteSpec({ type: 'bar', x: 'region', y: ['revenue'] }, columns, rows, 'Sales');
    expect(spec).toMatchObject({
      title: 'Sales',
      data: {
        values: rows,
        format: { parse: { orders: 'number', revenue: 'number', day: 'date' } },
      },
      mark: { type: 'bar' },
      encoding: {
        x: { field: 'region', type: 'nominal' },
        y: { field: 'revenue', type: 'quantitative' },
      },
    });
  });

  it('folds several measures into colours, and a series into colours', () => {
    const folded = vegaLiteSpec(
      { type: 'line', x: 'day', y: ['orders', 'revenue'] },
      columns,
      rows,
      't',
    );
    expect(folded.transform).toEqual([{ fold: ['orders', 'revenue'], as: ['measure', 'value'] }]);
    expect(folded.encoding).toMatchObject({ x: { type: 'temporal' }, color: { field: 'measure' } });
    const series = vegaLiteSpec(
      { type: 'area', x: 'day', y: ['revenue'], series: 'region' },
      columns,
      rows,
      't',
    );
    expect(series.encoding).toMatchObject({ color: { field: 'region' } });
  });

  it('draws a pie as arcs and a table as text columns', () => {
    expect(
      vegaLiteSpec({ type: 'pie', x: 'region', y: ['revenue'] }, columns, rows, 't'),
    ).toMatchObject({
      mark: { type: 'arc' },
      encoding: { theta: { field: 'revenue' }, color: { field: 'region' } },
    });
    const table = vegaLiteSpec({ type: 'table' }, columns, rows, 't');
    expect((table.hconcat as unknown[]).length).toBe(4);
  });
});
