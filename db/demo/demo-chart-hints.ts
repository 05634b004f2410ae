/** A demo report's chart hint (the shape of @app/templates' ChartHint; db/ imports no lib). */
export interface DemoChart {
  type: 'bar' | 'line' | 'area' | 'pie' | 'table';
  x?: string;
  y?: string[];
  series?: string;
  format?: Record<string, 'currency' | 'percent' | 'integer' | 'number'>;
}

/**
 * How each demo report is drawn (#40): one of every chart type, measures formatted by their
 * meaning. A report without an entry gets the chart inferred from its fields.
 */
export const DEMO_CHARTS: Readonly<Record<string, DemoChart>> = {
  sales_by_region: {
    type: 'bar',
    x: 'region',
    y: ['total_amount', 'order_count'],
    format: { total_amount: 'currency' },
  },
  revenue_by_month: {
    type: 'line',
    x: 'month',
    y: ['revenue', 'order_count'],
    format: { revenue: 'currency' },
  },
  average_order_value: {
    type: 'bar',
    x: 'region',
    y: ['avg_order_value', 'min_order', 'max_order'],
    format: { avg_order_value: 'currency', min_order: 'currency', max_order: 'currency' },
  },
  top_customers: {
    type: 'bar',
    x: 'customer_name',
    y: ['total_spent'],
    format: { total_spent: 'currency' },
  },
  orders_by_status: {
    type: 'pie',
    x: 'status',
    y: ['order_count'],
    format: { total_amount: 'currency' },
  },
  order_lookup: { type: 'table', format: { unit_price: 'currency' } },
  customers_by_segment: { type: 'bar', x: 'segment', y: ['customer_count'], series: 'region' },
  product_catalog: { type: 'table', format: { unit_price: 'currency' } },
  sales_in_my_region: {
    type: 'area',
    x: 'month',
    y: ['total_amount', 'order_count'],
    format: { total_amount: 'currency' },
  },
  my_orders: { type: 'table', format: { total_amount: 'currency' } },
};
