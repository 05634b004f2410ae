import { Inject, Injectable } from '@nestjs/common';
import type { DatabaseHandle } from '@app/db';
import { sql } from 'kysely';
import { DATABASE } from '../tokens';

import type {
  AccessRecords,
  GeneratedToolRecord,
  ReportChanges,
  ReportSelection,
  StoredReport,
  TenantRecord,
} from './catalog-records';
import { toStoredReport } from './catalog-records';
import type { ChildRow } from './catalog-records';

/** Reads of the metadata schema. Every method is scoped by tenant, the first argument. */
@Injectable()
export class CatalogRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  private get g() {
    return this.database.db.withSchema('gateway');
  }

  /**
   * What tells this metadata database from any other: the id written at migration and the
   * database's oid (a copy or restore into a new database has the id but not the oid).
   * Not tenant data, so not tenant-scoped.
   */
  async databaseIdentity(): Promise<string> {
    const { rows } = await sql<{ id: string | null; oid: string }>`SELECT
        (SELECT id::text FROM gateway.database_identity LIMIT 1) AS id,
        (SELECT oid::text FROM pg_catalog.pg_database WHERE datname = current_database()) AS oid`.execute(
      this.database.db,
    );
    return `${rows[0]?.id ?? 'unmigrated'}/${rows[0]?.oid ?? ''}`;
  }

  async findTenant(tenantId: string): Promise<TenantRecord | undefined> {
    const row = await this.g
      .selectFrom('tenants as t')
      .leftJoin('datasources as d', 'd.tenant_id', 't.id')
      .select([
        't.id',
        't.name',
        't.created_at',
        't.catalog_version',
        'd.data_schema',
        'd.allowed_tables',
      ])
      .where('t.id', '=', tenantId)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      id: row.id,
      name: row.name,
      createdAt: String(row.created_at),
      catalogVersion: Number(row.catalog_version),
      dataSchema: row.data_schema,
      allowedTables: row.allowed_tables ?? [],
    };
  }

  /** The tenant's catalog version and when the tenant was created (one tenant's versions). */
  async catalogStamp(
    tenantId: string,
  ): Promise<{ version: number; createdAt: string } | undefined> {
    const row = await this.g
      .selectFrom('tenants')
      .select(['catalog_version', 'created_at'])
      .where('id', '=', tenantId)
      .executeTakeFirst();
    return row
      ? { version: Number(row.catalog_version), createdAt: String(row.created_at) }
      : undefined;
  }

  /**
   * Full reports with filters and fields: all of the tenant's, or the selection's. One
   * statement, so a report and its filters and fields always come from one snapshot.
   */
  async loadReports(tenantId: string, selection?: ReportSelection): Promise<StoredReport[]> {
    if (selection && 'ids' in selection && selection.ids.length === 0) return [];
    const rows = await this.g
      .selectFrom('reports as r')
      .selectAll('r')
      .select([
        sql<ChildRow[]>`(SELECT coalesce(json_agg(json_build_object(
            'name', f.name, 'type', f.type, 'description', f.description, 'required', f.required,
            'enum_values', f.enum_values, 'default_value', f.default_value)
            ORDER BY f.position, f.name), '[]')
          FROM gateway.report_filters f WHERE f.tenant_id = r.tenant_id AND f.report_id = r.id)`.as(
          'filters',
        ),
        sql<ChildRow[]>`(SELECT coalesce(json_agg(json_build_object(
            'name', c.name, 'type', c.type, 'description', c.description)
            ORDER BY c.position, c.name), '[]')
          FROM gateway.report_fields c WHERE c.tenant_id = r.tenant_id AND c.report_id = r.id)`.as(
          'fields',
        ),
      ])
      .where('r.tenant_id', '=', tenantId)
      .$if(!!selection && 'ids' in selection, (q) =>
        q.where('r.id', 'in', (selection as { ids: string[] }).ids),
      )
      .$if(!!selection && 'changedAfter' in selection, (q) =>
        q.where('r.changed_in', '>', (selection as { changedAfter: number }).changedAfter),
      )
      .orderBy('r.id')
      .execute();
    return rows.map((r) => toStoredReport(r, r.filters, r.fields));
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
        .where('removed_in', '>', version)
        .execute(),
    ]);
    return { changed, removed: removed.map((r) => r.report_id) };
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

/** A filter or field as loadReports reads it (JSON built by Postgres). */
