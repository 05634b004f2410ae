import { ORDER_DATE, ORDER_DATE_CLAUSE, REGION } from './demo-report';
import type { DemoReport } from './demo-report';

/** The demo reports over orders: sales and finance (the first of DEMO_REPORTS, in order). */
export const ORDER_REPORTS: DemoReport[] = [
  {
    id: 'sales_by_region',
    name: 'Sales by region',
    category: 'sales',
    description:
      'Order count and total sales amount per sales region, optionally for one region and a date range. Use it to compare regions or to answer "how much did we sell in the east in Q1".',
    sql: `SELECT o.region, count(*) AS order_count, sum(o.total_amount) AS total_amount
FROM orders o
WHERE (:region IS NULL OR o.region = :region)
  AND ${ORDER_DATE_CLAUSE}
GROUP BY o.region
ORDER BY o.region`,
    filters: [REGION, ORDER_DATE],
    fields: [
      ['region', 'string', 'sales region'],
      ['order_count', 'integer', 'number of orders'],
      ['total_amount', 'number', 'sum of order totals in USD'],
    ],
  },
  {
    id: 'revenue_by_month',
    name: 'Revenue by month',
    category: 'finance',
    description: 'Recognised revenue (orders not cancelled) per calendar month of one year.',
    sql: `SELECT date_trunc('month', o.order_date)::date AS month, sum(o.total_amount) AS revenue, count(*) AS order_count
FROM orders o
WHERE o.status <> 'cancelled' AND extract(year FROM o.order_date) = :year
GROUP BY 1
ORDER BY 1`,
    filters: [
      {
        name: 'year',
        type: 'integer',
        description: 'calendar year, e.g. 2025',
        default_value: 2025,
      },
    ],
    fields: [
      ['month', 'date', 'first day of the month'],
      ['revenue', 'number', 'revenue in USD'],
      ['order_count', 'integer', 'orders in the month'],
    ],
  },
  {
    id: 'average_order_value',
    name: 'Average order value',
    category: 'finance',
    description: 'Average, smallest and largest order value per region over a date range.',
    sql: `SELECT o.region, round(avg(o.total_amount), 2) AS avg_order_value, min(o.total_amount) AS min_order, max(o.total_amount) AS max_order
FROM orders o
WHERE (:region IS NULL OR o.region = :region) AND ${ORDER_DATE_CLAUSE}
GROUP BY o.region
ORDER BY o.region`,
    filters: [REGION, ORDER_DATE],
    fields: [
      ['region', 'string', 'sales region'],
      ['avg_order_value', 'number', 'average order total in USD'],
      ['min_order', 'number', 'smallest order'],
      ['max_order', 'number', 'largest order'],
    ],
  },
  {
    id: 'top_customers',
    name: 'Top customers',
    category: 'sales',
    description:
      'Customers ranked by total spend, optionally limited to some segments and a minimum spend.',
    sql: `SELECT c.id AS customer_id, c.name AS customer_name, c.segment, count(o.id) AS order_count, sum(o.total_amount) AS total_spent
FROM customers c JOIN orders o ON o.customer_id = c.id
WHERE (:segments IS NULL OR c.segment = ANY(:segments))
GROUP BY c.id, c.name, c.segment
HAVING (:min_total IS NULL OR sum(o.total_amount) >= :min_total)
ORDER BY total_spent DESC, c.id`,
    filters: [
      {
        name: 'segments',
        type: 'string_list',
        description: 'customer segments: enterprise, mid_market, smb',
      },
      { name: 'min_total', type: 'number', description: 'minimum total spend in USD' },
    ],
    fields: [
      ['customer_id', 'integer', 'customer id'],
      ['customer_name', 'string', 'customer name'],
      ['segment', 'string', 'customer segment'],
      ['order_count', 'integer', 'orders placed'],
      ['total_spent', 'number', 'total spend in USD'],
    ],
  },
  {
    id: 'orders_by_status',
    name: 'Orders by status',
    category: 'sales',
    description:
      'How many orders are in each fulfilment status, optionally since a date and for some statuses only.',
    sql: `SELECT o.status, count(*) AS order_count, sum(o.total_amount) AS total_amount
FROM orders o
WHERE (:statuses IS NULL OR o.status = ANY(:statuses))
  AND (:since IS NULL OR o.order_date >= :since)
GROUP BY o.status
ORDER BY o.status`,
    filters: [
      {
        name: 'statuses',
        type: 'string_list',
        description: 'statuses: pending, shipped, delivered, cancelled, returned',
      },
      { name: 'since', type: 'date', description: 'only orders on or after this day' },
    ],
    fields: [
      ['status', 'string', 'fulfilment status'],
      ['order_count', 'integer', 'orders'],
      ['total_amount', 'number', 'sum of totals in USD'],
    ],
  },
  {
    id: 'order_lookup',
    name: 'Order lookup',
    category: 'sales',
    description: 'The lines of one order: customer, status, products, quantities and prices.',
    sql: `SELECT o.id AS order_id, o.order_date, c.name AS customer_name, o.status, p.name AS product, i.quantity, i.unit_price
FROM orders o
JOIN customers c ON c.id = o.customer_id
JOIN order_items i ON i.order_id = o.id
JOIN products p ON p.id = i.product_id
WHERE o.id = :order_id
ORDER BY i.line_no`,
    filters: [{ name: 'order_id', type: 'integer', description: 'order number', required: true }],
    fields: [
      ['order_id', 'integer', 'order number'],
      ['order_date', 'date', 'order date'],
      ['customer_name', 'string', 'customer'],
      ['status', 'string', 'fulfilment status'],
      ['product', 'string', 'product name'],
      ['quantity', 'integer', 'units'],
      ['unit_price', 'number', 'price per unit in USD'],
    ],
  },
  {
    id: 'customers_by_segment',
    name: 'Customers by segment',
    category: 'sales',
    description: 'Number of customers per segment and region.',
    sql: `SELECT c.segment, c.region, count(*) AS customer_count
FROM customers c
WHERE (:segment IS NULL OR c.segment = :segment)
GROUP BY c.segment, c.region
ORDER BY c.segment, c.region`,
    filters: [
      {
        name: 'segment',
        type: 'enum',
        description: 'customer segment',
        enum_values: ['enterprise', 'mid_market', 'smb'],
      },
    ],
    fields: [
      ['segment', 'string', 'customer segment'],
      ['region', 'string', 'region'],
      ['customer_count', 'integer', 'customers'],
    ],
  },
];
