-- A tenant warehouse for the compose file: a second Postgres with a sales schema and the
-- read-only login of docs/examples/datasource-readonly-login.sql. Register it as acme's source:
--   PUT /v1/admin/datasources/warehouse
--   {"url":"postgres://report_gateway:warehouse-reader@warehouse:5432/sales","schema":"sales","tables":["orders"]}
CREATE SCHEMA sales;
CREATE TABLE sales.orders (id integer PRIMARY KEY, region text NOT NULL, total_amount numeric NOT NULL);
INSERT INTO sales.orders
  SELECT g, (ARRAY['east', 'west', 'north', 'south'])[1 + g % 4], round((random() * 1000)::numeric, 2)
  FROM generate_series(1, 10000) g;
CREATE ROLE report_gateway LOGIN PASSWORD 'warehouse-reader' NOINHERIT;
ALTER ROLE report_gateway SET default_transaction_read_only = on;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT CONNECT ON DATABASE sales TO report_gateway;
GRANT USAGE ON SCHEMA sales TO report_gateway;
GRANT SELECT ON sales.orders TO report_gateway;
