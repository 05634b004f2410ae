import { chartOf, chartProblems, inferChart } from './chart';
import type { ReportField } from '../model/report';

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
    expect(
      messages({
        type: 'bar',
        x: 'region',
        y: ['revenue'],
        format: { revenue: 'currency', orders: 'integer' },
      }),
    ).toEqual([]);
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
    [
      { type: 'bar', x: 'region', y: ['revenue'], format: { revenue: 'euros' } },
      'chart.format["revenue"] must be one of currency, percent, integer, number; got "euros"',
    ],
    [
      { type: 'bar', x: 'region', y: ['revenue'], format: { region: 'currency' } },
      'chart.format["region"]: "region" is string, and only numeric fields take a format',
    ],
    [
      { type: 'table', format: { 'r\\"]': 'currency' } },
      'chart.format["r\\\\\\"]"]: "r\\\\\\"]" is not an output field of the report',
    ],
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
    // an identifier is a number, not a measure
    expect(
      inferChart([field('order_id', 'integer'), field('day', 'date'), field('total', 'number')]),
    ).toEqual({ type: 'line', x: 'day', y: ['total'] });
  });

  it('uses the hint when there is one', () => {
    expect(
      chartOf({ chart: { type: 'pie', x: 'region', y: ['orders'] }, fields: FIELDS }).type,
    ).toBe('pie');
    expect(chartOf({ fields: FIELDS }).type).toBe('line');
  });
});
