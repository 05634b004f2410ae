import { activeTraceId } from '@app/registry';
import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { auditIn, GatewayRepository } from './gateway.repository';
import type { Proposal } from './proposal.repository';

export interface Installation {
  description: string;
  inputSchema: unknown;
  approvedBy: string;
  smokeTested: boolean;
  smokePreview: string | null;
}

/** The generated tool's row as installed, but for its tenant and name. */
function installedRow(proposal: Proposal, installation: Installation) {
  return {
    description: installation.description,
    input_schema: JSON.stringify(installation.inputSchema),
    source: proposal.source,
    sha256: proposal.sha256,
    proposal_id: proposal.id,
    approved_by: installation.approvedBy,
    smoke_tested: installation.smokeTested,
    smoke_preview: installation.smokePreview,
    status: 'active' as const,
    installed_at: sql<string>`now()`,
  };
}

/**
 * Decisions on proposals: taking one for review, settling it (rejected, failed) or installing
 * it, each with its audit row in the same transaction; and the tenant's decided proposals.
 */
@Injectable()
export class ProposalDecisions extends GatewayRepository {
  /** The tenant's latest decided proposals (installed, failed, rejected), newest first. */
  async recentDecisions(tenantId: string, limit: number) {
    return this.g
      .selectFrom('tool_proposals')
      .select([
        'id',
        'name',
        'proposed_by',
        'reviewed_by',
        'status',
        'outcome',
        'created_at',
        'decided_at',
      ])
      .where('tenant_id', '=', tenantId)
      .where('status', 'in', ['installed', 'failed', 'rejected'])
      .orderBy('decided_at', 'desc')
      .limit(limit)
      .execute();
  }

  /** Takes a pending proposal for review; false if it is not pending (any instance took it). */
  async claim(tenantId: string, id: string, reviewer: string): Promise<boolean> {
    const result = await this.g
      .updateTable('tool_proposals')
      .set({ status: 'installing', reviewed_by: reviewer })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async settle(
    tenantId: string,
    id: string,
    status: 'rejected' | 'failed',
    actor: string,
    outcome: string,
  ): Promise<void> {
    // the decision and its audit row commit together or not at all
    await this.database.db.transaction().execute(async (trx) => {
      const settled = await trx
        .withSchema('gateway')
        .updateTable('tool_proposals')
        .set({ status, reviewed_by: actor, outcome, decided_at: sql<string>`now()` })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .returning('name')
        .executeTakeFirst();
      await auditIn(
        trx,
        tenantId,
        actor,
        status === 'rejected' ? 'reject' : 'install_failed',
        settled?.name ?? id,
        { proposal_id: id, outcome, trace_id: activeTraceId() ?? null },
      );
    });
  }

  /**
   * Records the installed tool (new or replacing) and closes the proposal, in one transaction;
   * `between` (putting the file in place) runs inside it, last, so a failure there rolls the
   * row back, and a failed commit is undone by the caller.
   */
  async install(
    tenantId: string,
    proposal: Proposal,
    installation: Installation,
    between: () => Promise<void> = async () => undefined,
  ): Promise<void> {
    await this.database.db.transaction().execute(async (trx) => {
      const g = trx.withSchema('gateway');
      const row = installedRow(proposal, installation);
      await g
        .insertInto('generated_tools')
        .values({ tenant_id: tenantId, name: proposal.name, ...row })
        .onConflict((oc) => oc.columns(['tenant_id', 'name']).doUpdateSet(row))
        .execute();
      await g
        .updateTable('tool_proposals')
        .set({
          status: 'installed',
          outcome: installation.smokePreview,
          decided_at: sql<string>`now()`,
        })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', proposal.id)
        .execute();
      await auditIn(trx, tenantId, installation.approvedBy, 'install', proposal.name, {
        proposal_id: proposal.id,
        sha256: proposal.sha256,
        trace_id: activeTraceId() ?? null,
      });
      await between();
    });
  }
}
