import type { DatabaseHandle } from '@app/db';
import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { DATABASE } from '../tokens';
import type { FoundVia } from '../tokens';

/** One hour of one tool's calls by how the caller found it, as `gateway.report_usage` holds it. */
export interface UsageRow {
  tenant_id: string;
  tool: string;
  hour: string;
  found_via: FoundVia;
  calls: number;
  errors: number;
  empty: number;
  cached: number;
  latency_ms_sum: number;
  latency_buckets: number[];
}

/** gateway.report_usage: counts added to by every instance, read per tenant and tool. */
@Injectable()
export class ReportUsageRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  private get db() {
    return this.database.db.withSchema('gateway');
  }

  /** Adds the counts to the rows of the same (tenant, tool, hour, found_via). */
  async add(rows: UsageRow[]): Promise<void> {
    await this.db
      .insertInto('report_usage')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'tool', 'hour', 'found_via']).doUpdateSet({
          calls: sql`report_usage.calls + excluded.calls`,
          errors: sql`report_usage.errors + excluded.errors`,
          empty: sql`report_usage.empty + excluded.empty`,
          cached: sql`report_usage.cached + excluded.cached`,
          latency_ms_sum: sql`report_usage.latency_ms_sum + excluded.latency_ms_sum`,
          latency_buckets: sql`ARRAY(SELECT a + b FROM unnest(report_usage.latency_buckets, excluded.latency_buckets) AS t(a, b))`,
        }),
      )
      .execute();
  }

  /** Deletes the hours before `before` (ISO time), every tenant's. */
  async prune(before: string): Promise<void> {
    await this.db.deleteFrom('report_usage').where('hour', '<', before).execute();
  }

  async read(tenantId: string, tool: string, since: string) {
    return this.db
      .selectFrom('report_usage')
      .select([
        'hour',
        'found_via',
        'calls',
        'errors',
        'empty',
        'cached',
        'latency_ms_sum',
        'latency_buckets',
      ])
      .where('tenant_id', '=', tenantId)
      .where('tool', '=', tool)
      .where('hour', '>=', since)
      .execute();
  }

  /** Every tool's hours of the tenant since `since`, for the overview. */
  async readTenant(tenantId: string, since: string) {
    return this.db
      .selectFrom('report_usage')
      .select(['tool', 'calls', 'errors', 'empty', 'latency_buckets'])
      .where('tenant_id', '=', tenantId)
      .where('hour', '>=', since)
      .execute();
  }
}
