import type { DatabaseHandle } from '@app/db';
import { DATABASE } from '@app/registry';
import { Inject, Injectable } from '@nestjs/common';
import type { UsageRecord } from './usage-history';

/** A tool called after a select or a search_tools, and the question that led to it. */
export interface ToolUsage {
  userId: string;
  query: string;
  tool: string;
  source: 'select' | 'search_tools';
}

/** Questions longer than this are cut: the start says what was asked (and the table stays small). */
export const USAGE_QUERY_MAX = 500;

/** gateway.tool_usage: every read and write is one tenant's. */
@Injectable()
export class ToolUsageRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  private get g() {
    return this.database.db.withSchema('gateway');
  }

  async record(tenantId: string, usage: ToolUsage): Promise<void> {
    await this.g
      .insertInto('tool_usage')
      .values({
        tenant_id: tenantId,
        user_id: usage.userId,
        query: usage.query.slice(0, USAGE_QUERY_MAX),
        tool_name: usage.tool,
        source: usage.source,
      })
      .execute();
  }

  /** The tenant's newest records since `since`, at most `limit`, newest first. */
  async recent(tenantId: string, since: Date, limit: number): Promise<UsageRecord[]> {
    const rows = await this.g
      .selectFrom('tool_usage')
      .select(['query', 'tool_name', 'used_at', 'user_id'])
      .where('tenant_id', '=', tenantId)
      .where('used_at', '>=', since.toISOString())
      .orderBy('used_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      query: r.query,
      tool: r.tool_name,
      at: Date.parse(r.used_at),
      user: r.user_id,
    }));
  }

  /** Deletes the tenant's records beyond its newest `keep` (the history's row bound). */
  async trim(tenantId: string, keep: number): Promise<number> {
    const cutoff = this.g
      .selectFrom('tool_usage')
      .select('used_at')
      .where('tenant_id', '=', tenantId)
      .orderBy('used_at', 'desc')
      .offset(keep - 1)
      .limit(1);
    const result = await this.g
      .deleteFrom('tool_usage')
      .where('tenant_id', '=', tenantId)
      .where('used_at', '<', cutoff)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Deletes the tenant's records older than `before` (past the history's maximum age). */
  async forget(tenantId: string, before: Date): Promise<number> {
    const result = await this.g
      .deleteFrom('tool_usage')
      .where('tenant_id', '=', tenantId)
      .where('used_at', '<', before.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
