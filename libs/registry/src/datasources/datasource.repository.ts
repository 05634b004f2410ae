import { Inject, Injectable } from '@nestjs/common';
import type { DatabaseHandle, ShownConnection } from '@app/db';
import { sql } from 'kysely';
import { DATABASE } from '../tokens';
import type { ServerFingerprint } from './boundary/source-connect';
import type { SourceEngine } from './boundary/source-address';

/** A registered data source as stored: the connection only sealed (SecretBox). */
export interface StoredDatasource {
  name: string;
  sealedConnection: string;
  shown: ShownConnection;
  schema: string;
  tables: string[];
  poolMax: number;
  statementTimeoutMs: number | null;
  passIdentity: boolean;
  /** the protocol its URLs name (issue #42) */
  engine: SourceEngine;
  updatedAt: string;
}

export type DatasourceWrite = Omit<StoredDatasource, 'updatedAt'>;

/** Tenant data sources in the metadata schema. Tenant first, always. */
@Injectable()
export class DatasourceRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  private get g() {
    return this.database.db.withSchema('gateway');
  }

  async list(tenantId: string): Promise<StoredDatasource[]> {
    const rows = await this.g
      .selectFrom('tenant_datasources')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('name')
      .execute();
    return rows.map(toStored);
  }

  async find(tenantId: string, name: string): Promise<StoredDatasource | undefined> {
    const row = await this.g
      .selectFrom('tenant_datasources')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row ? toStored(row) : undefined;
  }

  /** Creates or replaces the source; returns whether it is new. */
  async upsert(tenantId: string, source: DatasourceWrite): Promise<boolean> {
    const values = {
      connection_secret: source.sealedConnection,
      connection_shown: JSON.stringify(source.shown),
      data_schema: source.schema,
      allowed_tables: source.tables,
      pool_max: source.poolMax,
      statement_timeout_ms: source.statementTimeoutMs,
      pass_identity: source.passIdentity,
      engine: source.engine,
    };
    const row = await this.g
      .insertInto('tenant_datasources')
      .values({ tenant_id: tenantId, name: source.name, ...values })
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'name']).doUpdateSet({ ...values, updated_at: sql`now()` }),
      )
      .returning(sql<boolean>`(xmax = 0)`.as('created'))
      .executeTakeFirstOrThrow();
    return row.created;
  }

  /**
   * The gateway's own database server as any database on it shows it (issue #37); null on the
   * embedded database, which is no server a source could reach.
   */
  async ownServer(): Promise<ServerFingerprint | null> {
    if (this.database.kind !== 'postgres') return null;
    const { rows } = await sql<ServerFingerprint>`
      SELECT pg_catalog.pg_postmaster_start_time()::text AS started,
             d.oid::text AS "databaseOid", d.datname AS "databaseName"
        FROM pg_catalog.pg_database d WHERE d.datname = current_database()`.execute(
      this.database.db,
    );
    return rows[0] ?? null;
  }

  /** Reports of the tenant that name the source (at most `limit`). */
  async reportsUsing(tenantId: string, name: string, limit = 20): Promise<string[]> {
    const rows = await this.g
      .selectFrom('reports')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('datasource', '=', name)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  /** 'deleted', 'missing', or the ids of reports that still use it (nothing deleted). */
  async delete(tenantId: string, name: string): Promise<'deleted' | 'missing' | string[]> {
    return this.database.db.transaction().execute(async (trx) => {
      const g = trx.withSchema('gateway');
      const users = await g
        .selectFrom('reports')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('datasource', '=', name)
        .orderBy('id')
        .limit(20)
        .forShare()
        .execute();
      if (users.length > 0) return users.map((u) => u.id);
      const result = await g
        .deleteFrom('tenant_datasources')
        .where('tenant_id', '=', tenantId)
        .where('name', '=', name)
        .executeTakeFirst();
      return result.numDeletedRows > 0n ? 'deleted' : 'missing';
    });
  }
}

function toStored(row: {
  name: string;
  connection_secret: string;
  connection_shown: ShownConnection;
  data_schema: string;
  allowed_tables: string[];
  pool_max: number;
  statement_timeout_ms: number | null;
  pass_identity: boolean;
  engine: SourceEngine;
  updated_at: string;
}): StoredDatasource {
  return {
    name: row.name,
    sealedConnection: row.connection_secret,
    shown: row.connection_shown,
    schema: row.data_schema,
    tables: row.allowed_tables,
    poolMax: row.pool_max,
    statementTimeoutMs: row.statement_timeout_ms,
    passIdentity: row.pass_identity,
    engine: row.engine,
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
