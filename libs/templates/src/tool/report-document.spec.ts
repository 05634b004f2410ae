import { parseReportDocument } from './report-document';

const DOC = {
  name: 'Sales by region',
  description: 'Orders and amounts per region',
  sql_template: 'SELECT o.region, sum(o.total_amount) AS total FROM orders o GROUP BY 1',
  category: 'sales',
  fields: [
    { name: 'region', type: 'string' },
    { name: 'total', type: 'number' },
  ],
};
const messages = (doc: unknown) => {
  const parsed = parseReportDocument('acme', 'sales', doc);
  return parsed.ok ? [] : parsed.problems.map((p) => p.message);
};

describe('the report document: chart format (#40)', () => {
  it('takes a format per field and keeps it in the metadata', () => {
    const chart = { type: 'bar', x: 'region', y: ['total'], format: { total: 'currency' } };
    const parsed = parseReportDocument('acme', 'sales', { ...DOC, chart });
    expect(parsed.ok && parsed.metadata.chart).toEqual(chart);
  });

  it('refuses a format outside currency, percent, integer, number, naming the field', () => {
    expect(messages({ ...DOC, chart: { type: 'bar', format: { total: 'euros' } } })).toEqual([
      'chart/format/total must be equal to one of the allowed values: currency, percent, integer, number',
    ]);
    expect(messages({ ...DOC, chart: { type: 'bar', format: ['currency'] } })).toEqual([
      'chart/format must be object',
    ]);
  });
});
