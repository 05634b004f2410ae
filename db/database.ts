import type { Insertable, Selectable, Updateable } from 'kysely';
import type {
  BusinessContextsTable,
  ContextMembersTable,
  DatasourcesTable,
  ReportFieldsTable,
  ReportFiltersTable,
  ReportRemovalsTable,
  ReportsTable,
  RoleGrantsTable,
  RolesTable,
  TenantDatasourcesTable,
  TenantsTable,
  UserGrantsTable,
  UserRolesTable,
} from './schema/catalog-tables';
import type {
  AdmissionVerdictsTable,
  AuditLogTable,
  DatabaseIdentityTable,
  GeneratedToolStatsTable,
  GeneratedToolsTable,
  MetaToolSettingsTable,
  ReportUsageTable,
  ToolProposalsTable,
  ToolUsageTable,
} from './schema/operation-tables';

export type * from './schema/catalog-tables';
export type * from './schema/operation-tables';

/**
 * The metadata schema (`gateway`): its tables (declared in `schema/`, the one place table
 * shapes are declared) and the one `DB` type over them.
 * Tenant data lives in one schema per tenant and is never typed here: it is only ever
 * reached through report templates.
 */
export const METADATA_SCHEMA = 'gateway';

export interface DB {
  admission_verdicts: AdmissionVerdictsTable;
  database_identity: DatabaseIdentityTable;
  tenants: TenantsTable;
  datasources: DatasourcesTable;
  tenant_datasources: TenantDatasourcesTable;
  reports: ReportsTable;
  report_removals: ReportRemovalsTable;
  report_filters: ReportFiltersTable;
  report_fields: ReportFieldsTable;
  business_contexts: BusinessContextsTable;
  context_members: ContextMembersTable;
  roles: RolesTable;
  role_grants: RoleGrantsTable;
  user_roles: UserRolesTable;
  user_grants: UserGrantsTable;
  tool_proposals: ToolProposalsTable;
  generated_tools: GeneratedToolsTable;
  generated_tool_stats: GeneratedToolStatsTable;
  meta_tool_settings: MetaToolSettingsTable;
  audit_log: AuditLogTable;
  report_usage: ReportUsageTable;
  tool_usage: ToolUsageTable;
}

export type Tenant = Selectable<TenantsTable>;
export type ReportRow = Selectable<ReportsTable>;
export type NewReport = Insertable<ReportsTable>;
export type ReportUpdate = Updateable<ReportsTable>;
export type ReportFilterRow = Selectable<ReportFiltersTable>;
export type NewReportFilter = Insertable<ReportFiltersTable>;
export type ReportFieldRow = Selectable<ReportFieldsTable>;
export type NewReportField = Insertable<ReportFieldsTable>;

/** The NOLOGIN role report SQL runs as (see the execution-hardening migration). */
export function readerRole(tenantId: string): string {
  return `gw_reader_${tenantId}`;
}
