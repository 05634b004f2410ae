import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * The metadata schema (`gateway`), the one place table shapes are declared.
 * Tenant data lives in one schema per tenant and is never typed here: it is only ever
 * reached through report templates.
 */
export const METADATA_SCHEMA = 'gateway';

/** timestamps come back as ISO text (see type-parsers.ts), identically on pg and PGlite */
type Timestamp = ColumnType<string, string | undefined, string>;

/**
 * A bigint column as it comes back: a number (type-parsers.ts turns int8 into a number while
 * it is exact; catalog versions, ids and counters stay far below 2^53).
 */
type BigIntNumber = number;

/** What a report filter may be (report_filters.type); the templates library checks it on write. */
export type FilterTypeName =
  | 'string'
  | 'enum'
  | 'integer'
  | 'number'
  | 'number_range'
  | 'date'
  | 'date_range'
  | 'boolean'
  | 'string_list';

/** What a report field may be (report_fields.type). */
export type FieldTypeName =
  'string' | 'integer' | 'number' | 'date' | 'timestamp' | 'boolean' | 'json';

export interface TenantsTable {
  id: string;
  name: string;
  catalog_version: Generated<BigIntNumber>;
  created_at: Timestamp;
  /** the transaction (xid8, as text) that last claimed a catalog version (report-changes migration) */
  claimed_by: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface DatasourcesTable {
  tenant_id: string;
  data_schema: string;
  allowed_tables: string[];
}

/** A connection as the API shows it: the URL without its password. */
export interface ShownConnection {
  url: string;
  replicas: string[];
}

/** A tenant's own Postgres server (issue #30); the URLs with passwords only encrypted. */
export interface TenantDatasourcesTable {
  tenant_id: string;
  name: string;
  /** AES-256-GCM of the JSON `{url, replicas}` (see libs/registry datasources/secret-box.ts) */
  connection_secret: string;
  connection_shown: ColumnType<ShownConnection, string, string>;
  data_schema: string;
  allowed_tables: string[];
  pool_max: Generated<number>;
  statement_timeout_ms: ColumnType<number | null, number | null | undefined, number | null>;
  /** sessions set request.jwt.claims to the caller's identity (migration 2026-12-06T13-00) */
  pass_identity: Generated<boolean>;
  /** the protocol the source speaks (migration 2026-12-06T15-00) */
  engine: Generated<'postgres' | 'mysql'>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type ReportStatus = 'active' | 'disabled';

export interface ReportsTable {
  tenant_id: string;
  id: string;
  name: string;
  description: string;
  sql_template: string;
  category: string;
  status: Generated<ReportStatus>;
  version: Generated<number>;
  updated_at: Timestamp;
  /** the catalog version the row's last change claimed (see the report-changes migration) */
  changed_in: Generated<BigIntNumber>;
  /** optional words for tool search (migration 2026-12-02T04-00) */
  synonyms: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
  example_questions: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
  /** per-report execution limits; NULL: the gateway-wide setting */
  statement_timeout_ms: ColumnType<number | null, number | null | undefined, number | null>;
  max_rows: ColumnType<number | null, number | null | undefined, number | null>;
  max_result_bytes: ColumnType<number | null, number | null | undefined, number | null>;
  /** the tenant data source the report runs on; NULL: the tenant's schema here */
  datasource: ColumnType<string | null, string | null | undefined, string | null>;
  /** how the rows are best drawn, `{type, x, y, series}` (migration 2026-12-03T22-00); NULL: inferred */
  chart: ColumnType<unknown, string | null | undefined, string | null>;
  /** answered as a task at once to a client that takes tasks (migration 2026-12-06T10-00) */
  run_as_task: Generated<boolean>;
  /** seconds a page of rows is answered from the result cache (migration 2026-12-06T12-00); NULL: never */
  cache_ttl_seconds: ColumnType<number | null, number | null | undefined, number | null>;
}

/** A removed report: the catalog version its removal claimed. */
export interface ReportRemovalsTable {
  tenant_id: string;
  report_id: string;
  removed_in: BigIntNumber;
}

export interface ReportFiltersTable {
  tenant_id: string;
  report_id: string;
  name: string;
  type: FilterTypeName;
  description: Generated<string>;
  required: Generated<boolean>;
  enum_values: string[] | null;
  default_value: ColumnType<unknown, string | null | undefined, string | null>;
  position: Generated<number>;
}

export interface ReportFieldsTable {
  tenant_id: string;
  report_id: string;
  name: string;
  type: FieldTypeName;
  description: Generated<string>;
  position: Generated<number>;
}

export interface BusinessContextsTable {
  tenant_id: string;
  name: string;
  description: Generated<string>;
}

/** A context holds whole categories and/or single reports. Exactly one of the two is set. */
export interface ContextMembersTable {
  id: Generated<number>;
  tenant_id: string;
  context: string;
  category: string | null;
  report_id: string | null;
}

export interface RolesTable {
  tenant_id: string;
  name: string;
  description: Generated<string>;
  /** an admin role sees every report of its tenant */
  is_admin: Generated<boolean>;
}

/** A role's grant of a report or of a whole category. Exactly one of the two is set. */
export interface RoleGrantsTable {
  id: Generated<number>;
  tenant_id: string;
  role: string;
  category: string | null;
  report_id: string | null;
}

export interface UserRolesTable {
  tenant_id: string;
  user_id: string;
  role: string;
}

export type GrantEffect = 'allow' | 'deny';

export interface UserGrantsTable {
  id: Generated<number>;
  tenant_id: string;
  user_id: string;
  category: string | null;
  report_id: string | null;
  effect: GrantEffect;
}

export type ProposalStatus = 'pending' | 'installing' | 'rejected' | 'failed' | 'installed';

export interface ToolProposalsTable {
  id: string;
  tenant_id: string;
  name: string;
  description: Generated<string>;
  source: string;
  sha256: string;
  test_args: ColumnType<unknown, string | null, string | null>;
  proposed_by: string;
  status: Generated<ProposalStatus>;
  reviewed_by: string | null;
  /** why it was rejected or failed, or what the smoke call returned */
  outcome: string | null;
  created_at: Timestamp;
  decided_at: string | null;
  /** the trace id of the request that made the proposal */
  trace_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** the proposer's roles and claims when proposing: the smoke call runs as them */
  proposer_roles: ColumnType<string[], string | undefined, string>;
  proposer_claims: ColumnType<Record<string, string>, string | undefined, string>;
}

export interface GeneratedToolStatsTable {
  tenant_id: string;
  name: string;
  calls: ColumnType<BigIntNumber, number | undefined, number>;
  errors: ColumnType<BigIntNumber, number | undefined, number>;
  last_error: string | null;
  last_error_at: string | null;
}

export interface MetaToolSettingsTable {
  tenant_id: string;
  enabled: boolean;
  updated_by: string;
  updated_at: Generated<Timestamp>;
}

export interface GeneratedToolsTable {
  tenant_id: string;
  name: string;
  description: string;
  input_schema: ColumnType<unknown, string, string>;
  source: string;
  sha256: string;
  proposal_id: string;
  approved_by: string;
  smoke_tested: boolean;
  smoke_preview: string | null;
  status: Generated<'active' | 'disabled'>;
  installed_at: Timestamp;
}

export interface AuditLogTable {
  id: Generated<BigIntNumber>;
  tenant_id: string;
  actor: string;
  action: string;
  subject: string;
  detail: ColumnType<unknown, string | undefined, string>;
  at: Timestamp;
}

/** A tool called after a select or search_tools, and the question that led to it (#31). */
export interface ToolUsageTable {
  id: Generated<BigIntNumber>;
  tenant_id: string;
  user_id: string;
  query: string;
  tool_name: string;
  source: 'select' | 'search_tools';
  used_at: Timestamp;
}

/** One row: the id written when the metadata database was created (L2 key namespace). */
export interface DatabaseIdentityTable {
  id: Generated<string>;
  one_row: Generated<boolean>;
  created_at: Timestamp;
}

/** The SQL guard's verdict on a template, by hash (a cache: see its migration). */
export interface AdmissionVerdictsTable {
  tenant_id: string;
  template_hash: string;
  /** the guard's problems; [] = the template passes */
  problems: ColumnType<unknown, string, string>;
  judged_at: Generated<Timestamp>;
}

/** One hour of one tool's calls by how the caller found it (issue #33). */
export interface ReportUsageTable {
  tenant_id: string;
  tool: string;
  hour: Timestamp;
  found_via: 'listed' | 'selected' | 'searched';
  calls: number;
  errors: number;
  empty: number;
  /** calls answered from the result cache (migration 2026-12-06T14-00) */
  cached: Generated<number>;
  latency_ms_sum: number;
  latency_buckets: number[];
}

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
