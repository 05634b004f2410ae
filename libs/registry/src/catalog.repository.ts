import type { DatabaseHandle, DB, ReportFieldRow, ReportFilterRow, ReportRow } from '@app/db';
import type { Selectable, SelectQueryBuilder } from 'kysely';
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

/** Which of a tenant's reports to read: all, these ids, or those changed after a catalog version. */
export type ReportSelection = { ids: readonly string[] } | { changedAfter: number } | undefined;

/** What changed in a tenant's reports after a catalog version. */
export interface ReportChanges {
  /** reports inserted or updated after the version, as they are now */
  changed: StoredReport[];
  /** ids of reports removed after the version (some may have been added again: see changed) */
  removed: string[];
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

  /** Full reports with filters and fields: all of the tenant's, or the selection's. */
  async loadReports(tenantId: string, selection?: ReportSelection): Promise<StoredReport[]> {
    if (selection && 'ids' in selection && selection.ids.length === 0) return [];
    const [reports, filters, fields] = await Promise.all([
      this.g
        .selectFrom('reports')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .$call((q) => this.selected(q, tenantId, selection, 'id'))
        .orderBy('id')
        .execute(),
      this.reportChildren('report_filters', tenantId, selection),
      this.reportChildren('report_fields', tenantId, selection),
    ]);
    const filtersOf = groupBy(filters, (f) => f.report_id);
    const fieldsOf = groupBy(fields, (f) => f.report_id);
    return reports.map((r) =>
      toStoredReport(r, filtersOf.get(r.id) ?? [], fieldsOf.get(r.id) ?? []),
    );
  }

  /**
   * Reports changed and removed after `version` (see the report-changes migration): the
   * rows read are the changes, however big the tenant.
   */
  async changesSince(tenantId: string, version: number): Promise<ReportChanges> {
    const [changed, removed] = await Promise.all([
      this.loadReports(tenantId, { changedAfter: version }),
      this.g
        .selectFrom('report_removals')
        .select('report_id')
        .where('tenant_id', '=', tenantId)
        .where('removed_in', '>', String(version))
        .execute(),
    ]);
    return { changed, removed: removed.map((r) => r.report_id) };
  }

  /** Narrows a query on reports (column `id`) or on their children (`report_id`). */
  private selected<Q extends SelectQueryBuilder<DB, 'reports' | 'report_filters', object>>(
    query: Q,
    tenantId: string,
    selection: ReportSelection,
    column: 'id' | 'report_id',
  ): Q {
    if (!selection) return query;
    if ('ids' in selection) return query.where(column, 'in', selection.ids) as Q;
    if (column === 'id') return query.where('changed_in', '>', String(selection.changedAfter)) as Q;
    return query.where('report_id', 'in', (eb) =>
      eb
        .selectFrom('reports')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('changed_in', '>', String(selection.changedAfter)),
    ) as Q;
  }

  /** Filters or fields of the tenant's reports (or of the selection's), in their declared order. */
  private reportChildren<T extends 'report_filters' | 'report_fields'>(
    table: T,
    tenantId: string,
    selection: ReportSelection,
  ) {
    return (
      this.database.db
        .withSchema('gateway')
        // Kysely cannot build over a union of table names; both tables share these columns.
        .selectFrom(table as 'report_filters')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .$call((q) => this.selected(q, tenantId, selection, 'report_id'))
        .orderBy('report_id')
        .orderBy('position')
        .orderBy('name')
        .execute() as Promise<Array<Selectable<DB[T]>>>
    );
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
