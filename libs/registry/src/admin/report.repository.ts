import { Inject, Injectable } from '@nestjs/common';
import { writeReportRows } from '@app/db';
import type { DatabaseHandle, ReportRows } from '@app/db';
import type { ReportMetadata } from '@app/templates';
import { sql } from 'kysely';
import { DATABASE } from '../tokens';

/** Writes of report metadata. Tenant first; every write is one transaction. */
@Injectable()
export class ReportRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  /** Creates or replaces a report with its filters and fields; returns whether it was new. */
  async upsert(
    tenantId: string,
    report: ReportMetadata,
    status: 'active' | 'disabled',
  ): Promise<boolean> {
    return this.database.db
      .transaction()
      .execute((trx) => writeReportRows(trx, tenantId, reportRows(report, status)));
  }

  /**
   * Replaces a report only while it is still at `version` (the one a PATCH was merged onto):
   * 'changed' when another write came first, 'missing' when it was deleted meanwhile. The row
   * lock is held to commit, so no write slips in between the check and the write.
   */
  async replaceAt(
    tenantId: string,
    report: ReportMetadata,
    status: 'active' | 'disabled',
    version: number,
  ): Promise<'replaced' | 'changed' | 'missing'> {
    return this.database.db.transaction().execute(async (trx) => {
      const row = await trx
        .withSchema('gateway')
        .selectFrom('reports')
        .select('version')
        .where('tenant_id', '=', tenantId)
        .where('id', '=', report.id)
        .forUpdate()
        .executeTakeFirst();
      if (!row) return 'missing';
      if (row.version !== version) return 'changed';
      await writeReportRows(trx, tenantId, reportRows(report, status));
      return 'replaced';
    });
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    const result = await this.database.db
      .withSchema('gateway')
      .deleteFrom('reports')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async setStatus(tenantId: string, id: string, status: 'active' | 'disabled'): Promise<boolean> {
    const result = await this.database.db
      .withSchema('gateway')
      .updateTable('reports')
      .set({ status, updated_at: sql<string>`now()` })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}

/** A report's metadata as the rows that store it. */
function reportRows(report: ReportMetadata, status: 'active' | 'disabled'): ReportRows {
  return {
    report: {
      id: report.id,
      name: report.name,
      description: report.description,
      sql_template: report.sqlTemplate,
      category: report.category,
      status,
      synonyms: report.synonyms ?? null,
      example_questions: report.exampleQuestions ?? null,
      datasource: report.datasource ?? null,
      chart: report.chart ? JSON.stringify(report.chart) : null,
      run_as_task: report.runAsTask === true,
      cache_ttl_seconds: report.cacheTtlSeconds ?? null,
    },
    filters: report.filters.map((f) => ({
      name: f.name,
      type: f.type,
      description: f.description,
      required: f.required,
      enum_values: f.enumValues,
      default_value:
        f.defaultValue === null || f.defaultValue === undefined
          ? null
          : JSON.stringify(f.defaultValue),
    })),
    fields: report.fields.map((f) => ({
      name: f.name,
      type: f.type,
      description: f.description,
    })),
  };
}
