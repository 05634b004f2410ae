-- Remove the onboarding demo report again: one transaction; every instance drops the tool.
-- psql "$DATABASE_URL" -f db/examples/remove_report.sql
BEGIN;
DELETE FROM gateway.context_members WHERE tenant_id = 'acme' AND report_id = 'onboarding_demo';
DELETE FROM gateway.role_grants WHERE tenant_id = 'acme' AND report_id = 'onboarding_demo';
DELETE FROM gateway.reports WHERE tenant_id = 'acme' AND id = 'onboarding_demo';
COMMIT;
