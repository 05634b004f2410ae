-- Onboard a report with plain SQL: one transaction, no restart, no redeploy.
-- psql "$DATABASE_URL" -f db/examples/onboard_report.sql
-- Every gateway instance serves query_report_onboarding_demo as soon as this commits.
BEGIN;

INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
VALUES (
  'acme',
  'onboarding_demo',
  'Orders per status and region',
  'Number of orders per fulfilment status in one region. Onboarded with plain SQL.',
  'SELECT o.status, count(*) AS order_count
   FROM orders o
   WHERE (:region IS NULL OR o.region = :region)
   GROUP BY o.status
   ORDER BY o.status',
  'onboarding'
);

INSERT INTO gateway.report_filters (tenant_id, report_id, name, type, description, enum_values)
VALUES ('acme', 'onboarding_demo', 'region', 'enum', 'sales region', ARRAY['east', 'west', 'north', 'south']);

INSERT INTO gateway.report_fields (tenant_id, report_id, name, type, description, position)
VALUES ('acme', 'onboarding_demo', 'status', 'string', 'fulfilment status', 0),
       ('acme', 'onboarding_demo', 'order_count', 'integer', 'orders', 1);

-- In the SALES context and granted to analysts, as a report of its own.
INSERT INTO gateway.context_members (tenant_id, context, report_id) VALUES ('acme', 'SALES', 'onboarding_demo');
INSERT INTO gateway.role_grants (tenant_id, role, report_id) VALUES ('acme', 'analyst', 'onboarding_demo');

COMMIT;
