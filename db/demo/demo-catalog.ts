import type { FieldTypeName, FilterTypeName } from '../database';

/**
 * The demo catalog: the same report set for every demo tenant, over that tenant's own
 * data. Tests and the README rely on these facts (names, categories, grants, contexts).
 */
export interface DemoFilter {
  name: string;
  type: FilterTypeName;
  description: string;
  required?: boolean;
  enum_values?: string[];
  default_value?: unknown;
}

export interface DemoReport {
  id: string;
  name: string;
  category: string;
  description: string;
  sql: string;
  filters: DemoFilter[];
  fields: Array<[name: string, type: FieldTypeName, description: string]>;
}

const REGION: DemoFilter = {
  name: 'region',
  type: 'enum',
  description: 'sales region',
  enum_values: ['east', 'west', 'north', 'south'],
};
const ORDER_DATE: DemoFilter = {
  name: 'order_date',
  type: 'date_range',
  description: 'order date range, inclusive',
};
const ORDER_DATE_CLAUSE = `(:order_date_start IS NULL OR o.order_date >= :order_date_start)
  AND (:order_date_end IS NULL OR o.order_date <= :order_date_end)`;

export const DEMO_REPORTS: DemoReport[] = [
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
  {
    id: 'product_catalog',
    name: 'Product catalog',
    category: 'inventory',
    description: 'Products with their category and list price; search by name and price range.',
    sql: `SELECT p.sku, p.name, p.category, p.unit_price, p.discontinued
FROM products p
WHERE (:name_contains IS NULL OR p.name ILIKE '%' || :name_contains || '%')
  AND (:price_min IS NULL OR p.unit_price >= :price_min)
  AND (:price_max IS NULL OR p.unit_price <= :price_max)
  AND (:include_discontinued OR NOT p.discontinued)
ORDER BY p.sku`,
    filters: [
      {
        name: 'name_contains',
        type: 'string',
        description: 'part of the product name, case-insensitive',
      },
      { name: 'price', type: 'number_range', description: 'list price range in USD' },
      {
        name: 'include_discontinued',
        type: 'boolean',
        description: 'also list discontinued products',
        default_value: false,
      },
    ],
    fields: [
      ['sku', 'string', 'stock keeping unit'],
      ['name', 'string', 'product name'],
      ['category', 'string', 'product category'],
      ['unit_price', 'number', 'list price in USD'],
      ['discontinued', 'boolean', 'no longer sold'],
    ],
  },
  {
    id: 'low_stock',
    name: 'Low stock',
    category: 'inventory',
    description:
      'Stock on hand per product and warehouse, by default only where it is below the reorder level.',
    sql: `SELECT p.sku, p.name, v.warehouse, v.on_hand, v.reorder_level
FROM inventory v JOIN products p ON p.id = v.product_id
WHERE (:warehouse IS NULL OR v.warehouse = :warehouse)
  AND (NOT :only_below_reorder OR v.on_hand < v.reorder_level)
ORDER BY v.on_hand - v.reorder_level, p.sku, v.warehouse`,
    filters: [
      {
        name: 'warehouse',
        type: 'enum',
        description: 'warehouse',
        enum_values: ['east_dc', 'west_dc', 'central_dc'],
      },
      {
        name: 'only_below_reorder',
        type: 'boolean',
        description: 'only rows below the reorder level',
        default_value: true,
      },
    ],
    fields: [
      ['sku', 'string', 'stock keeping unit'],
      ['name', 'string', 'product name'],
      ['warehouse', 'string', 'warehouse'],
      ['on_hand', 'integer', 'units on hand'],
      ['reorder_level', 'integer', 'reorder threshold'],
    ],
  },
  {
    id: 'sales_in_my_region',
    name: 'Sales in my region',
    category: 'field_sales',
    description:
      "Orders and sales of the caller's own region (from the token's region claim), per month.",
    sql: `SELECT o.region, date_trunc('month', o.order_date)::date AS month, count(*) AS order_count, sum(o.total_amount) AS total_amount
FROM orders o
WHERE o.region = :claim_region AND ${ORDER_DATE_CLAUSE}
GROUP BY o.region, 2
ORDER BY 2`,
    filters: [ORDER_DATE],
    fields: [
      ['region', 'string', "the caller's region"],
      ['month', 'date', 'first day of the month'],
      ['order_count', 'integer', 'orders'],
      ['total_amount', 'number', 'sum of totals in USD'],
    ],
  },
  {
    id: 'my_orders',
    name: 'My orders',
    category: 'field_sales',
    description: 'The orders the caller booked as sales rep, newest first.',
    sql: `SELECT o.id AS order_id, o.order_date, o.region, o.status, o.total_amount
FROM orders o
WHERE o.sales_rep = :user_id AND (:status IS NULL OR o.status = :status)
ORDER BY o.order_date DESC, o.id DESC`,
    filters: [
      {
        name: 'status',
        type: 'enum',
        description: 'fulfilment status',
        enum_values: ['pending', 'shipped', 'delivered', 'cancelled', 'returned'],
      },
    ],
    fields: [
      ['order_id', 'integer', 'order number'],
      ['order_date', 'date', 'order date'],
      ['region', 'string', 'region'],
      ['status', 'string', 'status'],
      ['total_amount', 'number', 'order total in USD'],
    ],
  },
];

export const DEMO_CONTEXTS: Array<{ name: string; description: string; categories: string[] }> = [
  {
    name: 'SALES',
    description: 'selling: orders, customers, regions',
    categories: ['sales', 'field_sales'],
  },
  { name: 'FINANCE', description: 'revenue and order value', categories: ['finance'] },
  { name: 'INVENTORY', description: 'products and stock', categories: ['inventory'] },
];

export const DEMO_ROLES: Array<{
  name: string;
  description: string;
  is_admin?: boolean;
  categories?: string[];
  reports?: string[];
}> = [
  {
    name: 'analyst',
    description: 'sales and inventory analysis',
    categories: ['sales', 'inventory'],
  },
  {
    name: 'finance',
    description: 'finance team',
    categories: ['finance'],
    reports: ['sales_by_region'],
  },
  {
    name: 'sales_rep',
    description: 'field sales, own region and own orders',
    categories: ['field_sales'],
  },
  { name: 'admin', description: 'sees every report of the tenant', is_admin: true },
  { name: 'tool_author', description: 'may propose new tools through meta_tool' },
  { name: 'tool_reviewer', description: 'approves or rejects meta_tool proposals' },
];

export const DEMO_TABLES = ['customers', 'products', 'orders', 'order_items', 'inventory'];

export const DEMO_TENANTS: Array<{ id: string; name: string; orders: number; salt: number }> = [
  { id: 'acme', name: 'Acme Corp', orders: 50_000, salt: 1 },
  { id: 'globex', name: 'Globex Inc', orders: 30_000, salt: 7 },
];
