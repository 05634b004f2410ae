import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { auditIn, GatewayRepository } from './gateway.repository';

/** One generated tool as operators see it. */
export interface GeneratedToolView {
  name: string;
  status: 'active' | 'disabled';
  description: string;
  author: string | null;
  approved_by: string;
  smoke_tested: boolean;
  installed_at: string;
  calls: number;
  errors: number;
  error_rate: number;
  last_error: string | null;
}

/**
 * Installed generated tools and what operators change about them: their names and sources,
 * the list with call statistics, disable/enable, delete, and the tenant's meta_tool switch.
 * Every change writes its audit row. Tenant first, always.
 */
@Injectable()
export class GeneratedToolRepository extends GatewayRepository {
  async generatedNames(tenantId: string): Promise<string[]> {
    const rows = await this.g
      .selectFrom('generated_tools')
      .select('name')
      .where('tenant_id', '=', tenantId)
      .execute();
    return rows.map((r) => r.name);
  }

  async toolCount(tenantId: string): Promise<number> {
    const row = await this.g
      .selectFrom('generated_tools')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async activeTools(): Promise<
    Array<{ tenantId: string; name: string; source: string; sha256: string }>
  > {
    const rows = await this.g
      .selectFrom('generated_tools')
      .select(['tenant_id', 'name', 'source', 'sha256'])
      .where('status', '=', 'active')
      .execute();
    return rows.map((r) => ({
      tenantId: r.tenant_id,
      name: r.name,
      source: r.source,
      sha256: r.sha256,
    }));
  }

  /** Every generated tool of the tenant with its author and call statistics. */
  async listTools(tenantId: string): Promise<GeneratedToolView[]> {
    const rows = await this.g
      .selectFrom('generated_tools as t')
      .leftJoin('tool_proposals as p', 'p.id', 't.proposal_id')
      .leftJoin('generated_tool_stats as s', (join) =>
        join.onRef('s.tenant_id', '=', 't.tenant_id').onRef('s.name', '=', 't.name'),
      )
      .select([
        't.name',
        't.status',
        't.description',
        'p.proposed_by',
        't.approved_by',
        't.smoke_tested',
        't.installed_at',
        's.calls',
        's.errors',
        's.last_error',
      ])
      .where('t.tenant_id', '=', tenantId)
      .orderBy('t.name')
      .execute();
    return rows.map((r) => {
      const calls = Number(r.calls ?? 0);
      const errors = Number(r.errors ?? 0);
      return {
        name: r.name,
        status: r.status,
        description: r.description,
        author: r.proposed_by ?? null,
        approved_by: r.approved_by,
        smoke_tested: r.smoke_tested,
        installed_at: String(r.installed_at),
        calls,
        errors,
        error_rate: calls === 0 ? 0 : Math.round((errors / calls) * 1000) / 1000,
        last_error: r.last_error ?? null,
      };
    });
  }

  /** active <-> disabled; false when there is no such tool. Bumps the catalog version. */
  async setToolStatus(
    tenantId: string,
    name: string,
    status: 'active' | 'disabled',
    actor: string,
  ): Promise<boolean> {
    const result = await this.g
      .updateTable('generated_tools')
      .set({ status })
      .where('tenant_id', '=', tenantId)
      .where('name', '=', name)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return false;
    await auditIn(
      this.database.db,
      tenantId,
      actor,
      status === 'active' ? 'enable' : 'disable',
      name,
      {},
    );
    return true;
  }

  /**
   * Removes the row; the audit log keeps the whole record (source, schema, approver), so a
   * deleted tool can be re-proposed exactly. `between` runs inside the transaction (the file).
   */
  async deleteTool(
    tenantId: string,
    name: string,
    actor: string,
    between: () => Promise<void>,
  ): Promise<boolean> {
    return this.database.db.transaction().execute(async (trx) => {
      const row = await trx
        .withSchema('gateway')
        .deleteFrom('generated_tools')
        .where('tenant_id', '=', tenantId)
        .where('name', '=', name)
        .returningAll()
        .executeTakeFirst();
      if (!row) return false;
      await auditIn(trx, tenantId, actor, 'delete', name, { deleted: row });
      await between();
      return true;
    });
  }

  /** Whether meta_tool is switched on for the tenant (no row: on). */
  async tenantEnabled(tenantId: string): Promise<boolean> {
    const row = await this.g
      .selectFrom('meta_tool_settings')
      .select('enabled')
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return row?.enabled ?? true;
  }

  async setTenantEnabled(tenantId: string, enabled: boolean, actor: string): Promise<void> {
    await this.g
      .insertInto('meta_tool_settings')
      .values({ tenant_id: tenantId, enabled, updated_by: actor })
      .onConflict((oc) =>
        oc.column('tenant_id').doUpdateSet({ enabled, updated_by: actor, updated_at: sql`now()` }),
      )
      .execute();
    await auditIn(
      this.database.db,
      tenantId,
      actor,
      enabled ? 'meta_tool_enable' : 'meta_tool_disable',
      'meta_tool',
      {},
    );
  }
}
