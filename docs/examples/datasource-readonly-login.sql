-- The login a tenant's DBA creates for the report gateway on the tenant's own Postgres server
-- (or a read replica: run it on the primary, it replicates). Run it as the owner of the data
-- or a superuser, in the database the gateway will read. Replace the names and the password.
--
-- The gateway refuses a login that is a superuser, may create roles or databases, may INSERT,
-- UPDATE, DELETE or TRUNCATE any table it can reach, owns a listed table or may CREATE in the
-- schema (docs/report-authoring.md#tenant-data-sources). This login passes: it may only read
-- the tables granted below.

CREATE ROLE report_gateway LOGIN PASSWORD 'change-me' NOSUPERUSER NOCREATEDB NOCREATEROLE
  NOINHERIT CONNECTION LIMIT 20;
-- Belt and braces: every transaction of this login is read-only by default too.
ALTER ROLE report_gateway SET default_transaction_read_only = on;

-- PUBLIC may create in the public schema on Postgres 14 and older: take that away, or the
-- gateway refuses the login ("may CREATE in schema public").
REVOKE CREATE ON SCHEMA public FROM PUBLIC;

GRANT CONNECT ON DATABASE sales TO report_gateway;
GRANT USAGE ON SCHEMA sales TO report_gateway;
-- Only the tables the reports need; list the same ones in the registration's "tables".
GRANT SELECT ON sales.orders, sales.customers TO report_gateway;

-- Check: nothing here may be written by the login (each should return no row).
-- SELECT c.oid::regclass FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
--  WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
--    AND has_table_privilege('report_gateway', c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE');
