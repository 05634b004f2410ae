import type { ReportRow } from '@app/db';
import type { ChartHint, FieldType, FilterType, ReportMetadata } from '@app/templates';
import type { ReachPart } from './report-coverage';

/** What the catalog reads from the metadata schema, as the registry uses it (not rows). */

export interface TenantRecord {
  id: string;
  name: string;
  /** tells a tenant from an earlier one of the same id (deleted, then created again) */
  createdAt: string;
  catalogVersion: number;
  dataSchema: string | null;
  allowedTables: string[];
  /** the tenant's registered data sources (issue #30) by name: what their reports may read */
  sources?: Record<string, SourceScope>;
}

/** A registered data source as the catalog knows it (no connection, no secret). */
export interface SourceScope {
  schema: string;
  tables: string[];
  /** changes with every write of the source (a new login, a rotated password) */
  revision: string;
  /** the source's statement timeout; null: the gateway's */
  statementTimeoutMs: number | null;
  /** its sessions set request.jwt.claims to the caller's identity (issue #42) */
  passIdentity?: boolean;
  /** a MySQL-protocol source (issue #42); absent: Postgres */
  engine?: 'mysql';
}

export interface StoredReport {
  metadata: ReportMetadata;
  status: 'active' | 'disabled';
  updatedAt: string;
}

/** An installed generated tool (meta_tool), as stored. */
export interface GeneratedToolRecord {
  name: string;
  description: string;
  inputSchema: unknown;
  source: string;
  sha256: string;
  smokeTested: boolean;
  approvedBy: string;
  status: 'active' | 'disabled';
}

export interface AccessRecords {
  roles: Array<{ name: string; isAdmin: boolean }>;
  userRoles: Array<{ userId: string; role: string }>;
  userGrants: Array<{
    userId: string;
    category: string | null;
    reportId: string | null;
    effect: 'allow' | 'deny';
  }>;
  roleGrants: Array<{ role: string; category: string | null; reportId: string | null }>;
  contexts: Array<{
    name: string;
    description: string;
    category: string | null;
    reportId: string | null;
  }>;
}

/**
 * Which of a tenant's reports to read: all, these ids, those changed after a catalog version,
 * those of a part of the tenant (categories and ids), or a page in id order after `after`.
 */
export type ReportSelection =
  | { ids: readonly string[] }
  | { changedAfter: number }
  | { reach: ReachPart }
  | { after: string | null; limit: number }
  | undefined;

/** What changed in a tenant's reports after a catalog version. */
export interface ReportChanges {
  /** reports inserted or updated after the version, as they are now */
  changed: StoredReport[];
  /** ids of reports removed after the version (some may have been added again: see changed) */
  removed: string[];
}

/** A filter or field row as json_agg returns it. */
export interface ChildRow {
  name: string;
  type: string;
  description: string;
  required?: boolean;
  enum_values?: string[] | null;
  default_value?: unknown;
}

/** A report row with its filters and fields, as the registry uses it. */
export function toStoredReport(
  r: ReportRow,
  filters: ChildRow[],
  fields: ChildRow[],
): StoredReport {
  return {
    status: r.status,
    updatedAt: r.updated_at,
    metadata: {
      tenantId: r.tenant_id,
      id: r.id,
      name: r.name,
      description: r.description,
      sqlTemplate: r.sql_template,
      category: r.category,
      version: r.version,
      ...(r.synonyms ? { synonyms: r.synonyms } : {}),
      ...(r.example_questions ? { exampleQuestions: r.example_questions } : {}),
      ...(r.datasource ? { datasource: r.datasource } : {}),
      // any JSON a row holds: reportProblems judges it against the fields (not served if wrong)
      ...(r.chart !== null && r.chart !== undefined ? { chart: r.chart as ChartHint } : {}),
      ...(r.run_as_task ? { runAsTask: true } : {}),
      // a value outside 0..86400 (plain SQL) is clamped rather than served longer than a day
      ...(r.cache_ttl_seconds
        ? { cacheTtlSeconds: Math.min(Math.max(0, r.cache_ttl_seconds), 86_400) }
        : {}),
      ...reportLimits(r),
      filters: filters.map(toFilter),
      fields: fields.map((f) => ({
        name: f.name,
        type: f.type as FieldType,
        description: f.description,
      })),
    },
  };
}

/** The report's own limits, when it sets any (absent: the gateway's apply). */
function reportLimits(r: ReportRow): Pick<ReportMetadata, 'limits'> {
  if (r.statement_timeout_ms === null && r.max_rows === null && r.max_result_bytes === null)
    return {};
  return {
    limits: {
      statementTimeoutMs: r.statement_timeout_ms,
      maxRows: r.max_rows,
      maxResultBytes: r.max_result_bytes,
    },
  };
}

function toFilter(f: ChildRow): ReportMetadata['filters'][number] {
  return {
    name: f.name,
    type: f.type as FilterType,
    description: f.description,
    required: f.required ?? false,
    enumValues: f.enum_values ?? null,
    defaultValue: f.default_value ?? null,
  };
}
