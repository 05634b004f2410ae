import type { ColumnType, Generated } from 'kysely';
import type { BigIntNumber, Timestamp } from './columns';

/* The catalog's tables: tenants and their sources, reports, contexts, roles and grants. */

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
