/**
 * Deterministic demo data for one tenant schema, generated inside the database (no
 * round trip per row). `salt` makes each tenant's numbers different; the same salt always
 * yields the same rows.
 */
export function demoDataStatements(schema: string, orders: number, salt: number): string[] {
  const s = `"${schema}"`;
  return [...tableStatements(s), ...rowStatements(s, orders, salt), `ANALYZE ${s}.orders`];
}

/** The schema `s` (quoted) made afresh, with the demo tables. */
function tableStatements(s: string): string[] {
  return [
    `DROP SCHEMA IF EXISTS ${s} CASCADE`,
    `CREATE SCHEMA ${s}`,
    `CREATE TABLE ${s}.customers (id integer PRIMARY KEY, name text NOT NULL, region text NOT NULL, segment text NOT NULL, created_on date NOT NULL)`,
    `CREATE TABLE ${s}.products (id integer PRIMARY KEY, sku text NOT NULL UNIQUE, name text NOT NULL, category text NOT NULL, unit_price numeric(10,2) NOT NULL, discontinued boolean NOT NULL)`,
    `CREATE TABLE ${s}.orders (id integer PRIMARY KEY, customer_id integer NOT NULL REFERENCES ${s}.customers, order_date date NOT NULL, region text NOT NULL, status text NOT NULL, sales_rep text NOT NULL, total_amount numeric(12,2) NOT NULL)`,
    `CREATE TABLE ${s}.order_items (order_id integer NOT NULL REFERENCES ${s}.orders, line_no integer NOT NULL, product_id integer NOT NULL REFERENCES ${s}.products, quantity integer NOT NULL, unit_price numeric(10,2) NOT NULL, PRIMARY KEY (order_id, line_no))`,
    `CREATE TABLE ${s}.inventory (product_id integer NOT NULL REFERENCES ${s}.products, warehouse text NOT NULL, on_hand integer NOT NULL, reorder_level integer NOT NULL, PRIMARY KEY (product_id, warehouse))`,
  ];
}

/** The demo rows of the tables in `s`, from `orders` and `salt`. */
function rowStatements(s: string, orders: number, salt: number): string[] {
  return [
    `INSERT INTO ${s}.customers
     SELECT i,
            (ARRAY['Northwind','Contoso','Initech','Umbrella','Hooli','Vandelay','Stark','Wayne','Wonka','Tyrell'])[1 + (i * ${salt}) % 10]
              || ' ' || (ARRAY['Traders','Labs','Foods','Systems','Logistics','Retail','Health','Energy'])[1 + (i * 3 + ${salt}) % 8]
              || ' #' || i,
            -- a leading region and a small one: 42% east, 28% west, 18% north, 12% south
            (ARRAY['east','west','north','south'])[CASE WHEN (i * 37 + ${salt} * 11) % 100 < 42 THEN 1
              WHEN (i * 37 + ${salt} * 11) % 100 < 70 THEN 2 WHEN (i * 37 + ${salt} * 11) % 100 < 88 THEN 3 ELSE 4 END],
            -- few large accounts, many small ones: 15% enterprise, 30% mid_market, 55% smb
            CASE WHEN (i * 53 + ${salt} * 7) % 100 < 15 THEN 'enterprise'
                 WHEN (i * 53 + ${salt} * 7) % 100 < 45 THEN 'mid_market' ELSE 'smb' END,
            date '2022-01-01' + (i * 17 + ${salt}) % 1000
     FROM generate_series(1, 2000) AS g(i)`,
    `INSERT INTO ${s}.products
     SELECT i,
            'SKU-' || lpad(i::text, 5, '0'),
            (ARRAY['Widget','Gadget','Sprocket','Gizmo','Doohickey','Bracket','Valve','Sensor'])[1 + (i * ${salt}) % 8]
              || ' ' || (ARRAY['Mini','Pro','Max','Lite','Plus'])[1 + i % 5] || ' ' || i,
            (ARRAY['hardware','electronics','tools','parts','accessories'])[1 + (i * 11 + ${salt}) % 5],
            round((5 + (i * 37 + ${salt} * 11) % 495 + 0.99)::numeric, 2),
            i % 17 = 0
     FROM generate_series(1, 200) AS g(i)`,
    // seasonality (a Q4 peak, a summer dip) and growth (2026 above 2025); a few customers
    // who buy a lot and a long tail who buy little; many small orders and a few large ones
    `INSERT INTO ${s}.orders
     WITH w AS (
       SELECT k, (date '2025-01-01' + make_interval(months => k))::date AS first,
              (ARRAY[0.80, 0.74, 0.92, 0.95, 1.00, 0.90, 0.78, 0.84, 1.02, 1.12, 1.45, 1.72])[1 + k % 12]
                * (1 + 0.2 * (k / 12)) AS weight
       FROM generate_series(0, 22) AS k
     ), months AS (
       SELECT first, (first + interval '1 month')::date - first AS days,
              (sum(weight) OVER (ORDER BY k) - weight) / sum(weight) OVER () AS lo,
              sum(weight) OVER (ORDER BY k) / sum(weight) OVER () AS hi
       FROM w
     )
     SELECT g.i, c.id,
            m.first + (g.i * 31 + ${salt}) % m.days,
            c.region,
            -- most orders delivered, few returned or cancelled
            (ARRAY['delivered','delivered','delivered','delivered','delivered','delivered','delivered',
                   'delivered','delivered','delivered','delivered','delivered','delivered','delivered',
                   'shipped','shipped','shipped','pending','returned','cancelled'])[1 + (g.i * 7 + ${salt}) % 20],
            (ARRAY['alice','bob','rita','sam','tom'])[1 + (g.i * 3 + ${salt}) % 5],
            round((12 + 2400 * power(r.a, 2.6) + 10 * ${salt})::numeric, 2)
     FROM generate_series(1, ${orders}) AS g(i)
     CROSS JOIN LATERAL (SELECT ((g.i::bigint * 7907 + ${salt} * 131) % 100003) / 100003.0 AS u,
                                ((g.i::bigint * 104729 + ${salt} * 7919) % 100000) / 100000.0 AS a,
                                ((g.i::bigint * 15485863 + ${salt} * 31) % 99991) / 99991.0 AS v) AS r
     JOIN months m ON r.u >= m.lo AND r.u < m.hi
     JOIN ${s}.customers c ON c.id = 1 + floor(2000 * power(r.v, 2.2))::int`,
    `INSERT INTO ${s}.order_items
     SELECT o.id, l, p.id, 1 + (o.id + l) % 9, p.unit_price
     FROM ${s}.orders o
     CROSS JOIN LATERAL generate_series(1, 1 + o.id % 3) AS l
     -- best sellers and a long tail: low product ids are chosen far more often
     JOIN ${s}.products p ON p.id = 1 + floor(200 * power(((o.id * 13 + l * 29 + ${salt}) % 997) / 997.0, 2))::int`,
    `INSERT INTO ${s}.inventory
     SELECT p.id, w, (p.id * 7 + length(w) * ${salt}) % 120, 20 + p.id % 30
     FROM ${s}.products p CROSS JOIN unnest(ARRAY['east_dc','west_dc','central_dc']) AS w`,
  ];
}
