import { Inject, Injectable, Optional } from '@nestjs/common';
import type { DatabaseHandle, DB } from '@app/db';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { DATABASE } from '../../tokens';

import type {
  AccessRecords,
  GeneratedToolRecord,
  ReportChanges,
  ReportSelection,
  StoredReport,
  TenantRecord,
} from '../model/catalog-records';
import { toStoredReport } from '../model/catalog-records';
import { readAccess, readGenerated } from './catalog-side.repository';
import { isEmptyPart } from '../model/report-coverage';
import type { ReachPart } from '../model/report-coverage';
import type { ChildRow } from '../model/catalog-records';

/** A report's filters (of `gateway.reports r`) as a JSON array, in order. */
const filtersJson = () =>
  sql<ChildRow[]>`(SELECT coalesce(json_agg(json_build_object(
      'name', f.name, 'type', f.type, 'description', f.description, 'required', f.required,
      'enum_values', f.enum_values, 'default_value', f.default_value)
      ORDER BY f.position, f.name), '[]')
    FROM gateway.report_filters f WHERE f.tenant_id = r.tenant_id AND f.report_id = r.id)`;

/** A report's fields (of `gateway.reports r`) as a JSON array, in order. */
const fieldsJson = () =>
  sql<ChildRow[]>`(SELECT coalesce(json_agg(json_build_object(
      'name', c.name, 'type', c.type, 'description', c.description)
      ORDER BY c.position, c.name), '[]')
    FROM gateway.report_fields c WHERE c.tenant_id = r.tenant_id AND c.report_id = r.id)`;

/** Never provided: a snapshot's repository is made by inSnapshot. */
const SNAPSHOT_TRANSACTION = Symbol('SNAPSHOT_TRANSACTION');

/** Reads of the metadata schema. Every method is scoped by tenant, the first argument. */
@Injectable()
export class CatalogRepository {
  constructor(
    @Inject(DATABASE) private readonly database: DatabaseHandle,
    /** the transaction of a snapshot read (inSnapshot), else undefined */
    @Optional() @Inject(SNAPSHOT_TRANSACTION) private readonly trx: Kysely<DB> | null = null,
  ) {}

  private get root(): Kysely<DB> {
    return this.trx ?? this.database.db;
  }

  private get g() {
    return this.root.withSchema('gateway');
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
    const sources = await this.g
      .selectFrom('tenant_datasources')
      .select([
        'name',
        'data_schema',
        'allowed_tables',
        'updated_at',
        'statement_timeout_ms',
        'pass_identity',
        'engine',
      ])
      .where('tenant_id', '=', tenantId)
      .orderBy('name')
      .execute();
    return {
      id: row.id,
      name: row.name,
      createdAt: String(row.created_at),
      catalogVersion: Number(row.catalog_version),
      dataSchema: row.data_schema,
      allowedTables: row.allowed_tables ?? [],
      ...(sources.length > 0
        ? {
            sources: Object.fromEntries(
              sources.map((s) => [
                s.name,
                {
                  schema: s.data_schema,
                  tables: s.allowed_tables,
                  revision: new Date(s.updated_at).toISOString(),
                  statementTimeoutMs: s.statement_timeout_ms,
                  ...(s.pass_identity ? { passIdentity: true } : {}),
                  ...(s.engine === 'mysql' ? { engine: 'mysql' as const } : {}),
                },
              ]),
            ),
          }
        : {}),
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
    if (selection && 'reach' in selection && isEmptyPart(selection.reach)) return [];
    const rows = await this.g
      .selectFrom('reports as r')
      .selectAll('r')
      .select([filtersJson().as('filters'), fieldsJson().as('fields')])
      .where('r.tenant_id', '=', tenantId)
      .$if(!!selection && 'ids' in selection, (q) =>
        q.where('r.id', 'in', (selection as { ids: string[] }).ids),
      )
      .$if(!!selection && 'changedAfter' in selection, (q) =>
        q.where('r.changed_in', '>', (selection as { changedAfter: number }).changedAfter),
      )
      .$if(!!selection && 'reach' in selection, (q) => {
        const { categories, ids } = (selection as { reach: ReachPart }).reach;
        return q.where((eb) =>
          eb.or([
            ...(categories.length > 0 ? [eb('r.category', 'in', categories)] : []),
            ...(ids.length > 0 ? [eb('r.id', 'in', ids)] : []),
          ]),
        );
      })
      .$if(!!selection && 'after' in selection, (q) => {
        const { after, limit } = selection as { after: string | null; limit: number };
        return (after === null ? q : q.where('r.id', '>', after)).limit(limit);
      })
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

  loadGenerated(tenantId: string): Promise<GeneratedToolRecord[]> {
    return readGenerated(this.g, tenantId);
  }

  async loadAccess(tenantId: string): Promise<AccessRecords> {
    return readAccess(this.g, tenantId);
  }

  /**
   * `fn` with reads of one consistent snapshot (a REPEATABLE READ, READ ONLY transaction):
   * a catalog read in pages this way is the catalog at one version, whatever changes meanwhile.
   */
  inSnapshot<T>(fn: (reads: CatalogRepository) => Promise<T>): Promise<T> {
    return this.root
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute((trx) => fn(new CatalogRepository(this.database, trx)));
  }

  /** How many reports the tenant has, counting no further than `limit`. */
  async countReports(tenantId: string, limit: number): Promise<number> {
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM (
        SELECT 1 FROM gateway.reports WHERE tenant_id = ${tenantId} LIMIT ${limit}) s`.execute(
      this.root,
    );
    return rows[0]?.n ?? 0;
  }
}

/** A filter or field as loadReports reads it (JSON built by Postgres). */
