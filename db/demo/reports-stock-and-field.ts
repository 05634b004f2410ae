import { ORDER_DATE, ORDER_DATE_CLAUSE } from './demo-report';
import type { DemoReport } from './demo-report';

/** The demo reports over products and stock, then field sales (the rest of DEMO_REPORTS). */
export const STOCK_AND_FIELD_REPORTS: DemoReport[] = [
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
