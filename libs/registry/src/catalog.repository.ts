import type { DatabaseHandle, DB, ReportFieldRow, ReportFilterRow, ReportRow } from '@app/db';
import type { Selectable } from 'kysely';
import type { FieldType, FilterType, ReportMetadata } from '@app/templates';

export interface TenantRecord {
  id: string;
  name: string;
  catalogVersion: number;
  dataSchema: string | null;
  allowedTables: string[];
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

/** Reads of the metadata schema. Every method is scoped by tenant, the first argument. */
export class CatalogRepository {
  constructor(private readonly database: DatabaseHandle) {}

  private get g() {
    return this.database.db.withSchema('gateway');
  }

  async findTenant(tenantId: string): Promise<TenantRecord | undefined> {
    const row = await this.g
      .selectFrom('tenants as t')
      .leftJoin('datasources as d', 'd.tenant_id', 't.id')
      .select(['t.id', 't.name', 't.catalog_version', 'd.data_schema', 'd.allowed_tables'])
      .where('t.id', '=', tenantId)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      name: row.name,
      catalogVersion: Number(row.catalog_version),
      dataSchema: row.data_schema,
      allowedTables: row.allowed_tables ?? [],
    };
  }

  async catalogVersion(tenantId: string): Promise<number | undefined> {
    const row = await this.g
      .selectFrom('tenants')
      .select('catalog_version')
      .where('id', '=', tenantId)
      .executeTakeFirst();
    return row ? Number(row.catalog_version) : undefined;
  }

  /** Full reports with filters and fields; all of the tenant's, or only the ids given. */
  async loadReports(tenantId: string, ids?: readonly string[]): Promise<StoredReport[]> {
    if (ids && ids.length === 0) return [];
    const [reports, filters, fields] = await Promise.all([
      this.g
        .selectFrom('reports')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .$if(!!ids, (q) => q.where('id', 'in', ids!))
        .orderBy('id')
        .execute(),
      this.reportChildren('report_filters', tenantId, ids),
      this.reportChildren('report_fields', tenantId, ids),
    ]);
    const filtersOf = groupBy(filters, (f) => f.report_id);
    const fieldsOf = groupBy(fields, (f) => f.report_id);
    return reports.map((r) =>
      toStoredReport(r, filtersOf.get(r.id) ?? [], fieldsOf.get(r.id) ?? []),
    );
  }

  /** Filters or fields of the tenant's reports (or of the ids given), in their declared order. */
  private reportChildren<T extends 'report_filters' | 'report_fields'>(
    table: T,
    tenantId: string,
    ids?: readonly string[],
  ) {
    return (
      this.database.db
        .withSchema('gateway')
        // Kysely cannot build over a union of table names; both tables share these columns.
        .selectFrom(table as 'report_filters')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .$if(!!ids, (q) => q.where('report_id', 'in', ids!))
        .orderBy('report_id')
        .orderBy('position')
        .orderBy('name')
        .execute() as Promise<Array<Selectable<DB[T]>>>
    );
  }

  /** Id, version and status of every report: enough to tell which ones changed. */
  async reportVersions(
    tenantId: string,
  ): Promise<Array<{ id: string; version: number; status: 'active' | 'disabled' }>> {
    return this.g
      .selectFrom('reports')
      .select(['id', 'version', 'status'])
      .where('tenant_id', '=', tenantId)
      .orderBy('id')
      .execute();
  }

  async loadGenerated(tenantId: string): Promise<GeneratedToolRecord[]> {
    const rows = await this.g
      .selectFrom('generated_tools')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('name')
      .execute();
    return rows.map((r) => ({
      name: r.name,
      description: r.description,
      inputSchema: r.input_schema,
      source: r.source,
      sha256: r.sha256,
      smokeTested: r.smoke_tested,
      approvedBy: r.approved_by,
      status: r.status,
    }));
  }

  async loadAccess(tenantId: string): Promise<AccessRecords> {
    const [roles, grants, contexts, userRoles, userGrants] = await Promise.all([
      this.g
        .selectFrom('roles')
        .select(['name', 'is_admin'])
        .where('tenant_id', '=', tenantId)
        .execute(),
      this.g
        .selectFrom('role_grants')
        .select(['role', 'category', 'report_id'])
        .where('tenant_id', '=', tenantId)
        .execute(),
      this.g
        .selectFrom('business_contexts as c')
        .leftJoin('context_members as m', (join) =>
          join.onRef('m.tenant_id', '=', 'c.tenant_id').onRef('m.context', '=', 'c.name'),
        )
        .select(['c.name', 'c.description', 'm.category', 'm.report_id'])
        .where('c.tenant_id', '=', tenantId)
        .execute(),
      this.g
        .selectFrom('user_roles')
        .select(['user_id', 'role'])
        .where('tenant_id', '=', tenantId)
        .execute(),
      this.g
        .selectFrom('user_grants')
        .select(['user_id', 'category', 'report_id', 'effect'])
        .where('tenant_id', '=', tenantId)
        .execute(),
    ]);
    return {
      roles: roles.map((r) => ({ name: r.name, isAdmin: r.is_admin })),
      userRoles: userRoles.map((r) => ({ userId: r.user_id, role: r.role })),
      userGrants: userGrants.map((g) => ({
        userId: g.user_id,
        category: g.category,
        reportId: g.report_id,
        effect: g.effect,
      })),
      roleGrants: grants.map((g) => ({
        role: g.role,
        category: g.category,
        reportId: g.report_id,
      })),
      contexts: contexts.map((c) => ({
        name: c.name,
        description: c.description,
        category: c.category,
        reportId: c.report_id,
      })),
    };
  }
}

function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const row of rows) {
    const list = map.get(key(row));
    if (list) list.push(row);
    else map.set(key(row), [row]);
  }
  return map;
}

function toStoredReport(
  r: ReportRow,
  filters: ReportFilterRow[],
  fields: ReportFieldRow[],
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
      filters: filters.map((f) => ({
        name: f.name,
        type: f.type as FilterType,
        description: f.description,
        required: f.required,
        enumValues: f.enum_values,
        defaultValue: f.default_value ?? null,
      })),
      fields: fields.map((f) => ({
        name: f.name,
        type: f.type as FieldType,
        description: f.description,
      })),
    },
  };
}
