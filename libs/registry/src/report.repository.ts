import { Inject, Injectable } from '@nestjs/common';
import type { DatabaseHandle } from '@app/db';
import type { ReportMetadata } from '@app/templates';
import { sql } from 'kysely';
import { DATABASE } from './tokens';

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
    return this.database.db.transaction().execute(async (trx) => {
      const g = trx.withSchema('gateway');
      const existed = await g
        .selectFrom('reports')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('id', '=', report.id)
        .forUpdate()
        .executeTakeFirst();
      const row = {
        name: report.name,
        description: report.description,
        sql_template: report.sqlTemplate,
        category: report.category,
        status,
        synonyms: report.synonyms ?? null,
        example_questions: report.exampleQuestions ?? null,
      };
      if (existed) {
        await g
          .updateTable('reports')
          .set(row)
          .where('tenant_id', '=', tenantId)
          .where('id', '=', report.id)
          .execute();
      } else {
        await g
          .insertInto('reports')
          .values({ tenant_id: tenantId, id: report.id, ...row })
          .execute();
      }
      await g
        .deleteFrom('report_filters')
        .where('tenant_id', '=', tenantId)
        .where('report_id', '=', report.id)
        .execute();
      await g
        .deleteFrom('report_fields')
        .where('tenant_id', '=', tenantId)
        .where('report_id', '=', report.id)
        .execute();
      if (report.filters.length > 0) {
        await g
          .insertInto('report_filters')
          .values(
            report.filters.map((f, position) => ({
              tenant_id: tenantId,
              report_id: report.id,
              name: f.name,
              type: f.type,
              description: f.description,
              required: f.required,
              enum_values: f.enumValues,
              default_value:
                f.defaultValue === null || f.defaultValue === undefined
                  ? null
                  : JSON.stringify(f.defaultValue),
              position,
            })),
          )
          .execute();
      }
      if (report.fields.length > 0) {
        await g
          .insertInto('report_fields')
          .values(
            report.fields.map((f, position) => ({
              tenant_id: tenantId,
              report_id: report.id,
              name: f.name,
              type: f.type,
              description: f.description,
              position,
            })),
          )
          .execute();
      }
      return !existed;
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
