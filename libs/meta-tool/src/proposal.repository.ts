import { randomUUID } from 'node:crypto';
import type { DatabaseHandle, DB, ProposalStatus } from '@app/db';
import { activeTraceId, DATABASE } from '@app/registry';
import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { ProposalInput } from './contract';
import { sha256 } from './tool-files';

export interface Proposal {
  id: string;
  tenantId: string;
  name: string;
  description: string;
  source: string;
  sha256: string;
  testArgs: Record<string, unknown> | null;
  proposedBy: string;
  status: ProposalStatus;
  reviewedBy: string | null;
  outcome: string | null;
  createdAt: string;
  proposerRoles: string[];
  proposerClaims: Record<string, string>;
}

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

export interface Installation {
  description: string;
  inputSchema: unknown;
  approvedBy: string;
  smokeTested: boolean;
  smokePreview: string | null;
}

export class PendingNameClash extends Error {}

const UNIQUE_VIOLATION = '23505';

/** Proposals, installed generated tools and the audit log. Tenant first, always. */
@Injectable()
export class ProposalRepository {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  private get g() {
    return this.database.db.withSchema('gateway');
  }

  async create(
    tenantId: string,
    proposer: string,
    input: ProposalInput,
    identity: { roles: readonly string[]; claims: Readonly<Record<string, string>> } = {
      roles: [],
      claims: {},
    },
  ): Promise<Proposal> {
    const id = randomUUID();
    try {
      // the proposal and its audit row commit together or not at all
      await this.database.db.transaction().execute(async (trx) => {
        await trx
          .withSchema('gateway')
          .insertInto('tool_proposals')
          .values({
            id,
            tenant_id: tenantId,
            name: input.name,
            description: input.description ?? '',
            source: input.code,
            sha256: sha256(input.code),
            test_args: input.testArgs === undefined ? null : JSON.stringify(input.testArgs),
            proposed_by: proposer,
            proposer_roles: JSON.stringify(identity.roles),
            proposer_claims: JSON.stringify(identity.claims),
            trace_id: activeTraceId() ?? null,
          })
          .execute();
        await auditIn(trx, tenantId, proposer, 'propose', input.name, {
          proposal_id: id,
          sha256: sha256(input.code),
          trace_id: activeTraceId() ?? null,
        });
      });
    } catch (err) {
      if ((err as { code?: string }).code === UNIQUE_VIOLATION)
        throw new PendingNameClash(input.name);
      throw err;
    }
    return (await this.find(tenantId, id))!;
  }

  async find(tenantId: string, id: string): Promise<Proposal | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
    const row = await this.g
      .selectFrom('tool_proposals')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toProposal(row) : undefined;
  }

  async hasOpenProposal(tenantId: string, name: string): Promise<boolean> {
    const row = await this.g
      .selectFrom('tool_proposals')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('name', '=', name)
      .where('status', 'in', ['pending', 'installing'])
      .executeTakeFirst();
    return row !== undefined;
  }

  async pendingCount(tenantId: string, proposer: string): Promise<number> {
    const row = await this.g
      .selectFrom('tool_proposals')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('tenant_id', '=', tenantId)
      .where('proposed_by', '=', proposer)
      .where('status', 'in', ['pending', 'installing'])
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async toolCount(tenantId: string): Promise<number> {
    const row = await this.g
      .selectFrom('generated_tools')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
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
    await this.audit(
      tenantId,
      actor,
      enabled ? 'meta_tool_enable' : 'meta_tool_disable',
      'meta_tool',
      {},
    );
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
    await this.audit(tenantId, actor, status === 'active' ? 'enable' : 'disable', name, {});
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
      const g = trx.withSchema('gateway');
      const row = await g
        .deleteFrom('generated_tools')
        .where('tenant_id', '=', tenantId)
        .where('name', '=', name)
        .returningAll()
        .executeTakeFirst();
      if (!row) return false;
      await g
        .insertInto('audit_log')
        .values({
          tenant_id: tenantId,
          actor,
          action: 'delete',
          subject: name,
          detail: JSON.stringify({ deleted: row }),
        })
        .execute();
      await between();
      return true;
    });
  }

  async listPending(tenantId: string): Promise<Proposal[]> {
    const rows = await this.g
      .selectFrom('tool_proposals')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('status', '=', 'pending')
      .orderBy('created_at')
      .execute();
    return rows.map(toProposal);
  }

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
      const row = {
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
      await g
        .insertInto('audit_log')
        .values({
          tenant_id: tenantId,
          actor: installation.approvedBy,
          action: 'install',
          subject: proposal.name,
          detail: JSON.stringify({
            proposal_id: proposal.id,
            sha256: proposal.sha256,
            trace_id: activeTraceId() ?? null,
          }),
        })
        .execute();
      await between();
    });
  }

  async generatedNames(tenantId: string): Promise<string[]> {
    const rows = await this.g
      .selectFrom('generated_tools')
      .select('name')
      .where('tenant_id', '=', tenantId)
      .execute();
    return rows.map((r) => r.name);
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

  async audit(tenantId: string, ...entry: AuditEntry): Promise<void> {
    await auditIn(this.database.db, tenantId, ...entry);
  }
}

/** Who did what to which subject, and the details. */
type AuditEntry = [actor: string, action: string, subject: string, detail: Record<string, unknown>];

/** One audit row, written with the statement's own connection or inside a transaction. */
async function auditIn(
  db: Kysely<DB>,
  tenantId: string,
  ...[actor, action, subject, detail]: AuditEntry
): Promise<void> {
  await db
    .withSchema('gateway')
    .insertInto('audit_log')
    .values({ tenant_id: tenantId, actor, action, subject, detail: JSON.stringify(detail) })
    .execute();
}

function toProposal(row: {
  id: string;
  tenant_id: string;
  name: string;
  description: string;
  source: string;
  sha256: string;
  test_args: unknown;
  proposed_by: string;
  status: ProposalStatus;
  reviewed_by: string | null;
  outcome: string | null;
  created_at: string;
  proposer_roles?: unknown;
  proposer_claims?: unknown;
}): Proposal {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    description: row.description,
    source: row.source,
    sha256: row.sha256,
    testArgs: (row.test_args as Record<string, unknown> | null) ?? null,
    proposedBy: row.proposed_by,
    status: row.status,
    reviewedBy: row.reviewed_by,
    outcome: row.outcome,
    createdAt: row.created_at,
    proposerRoles: Array.isArray(row.proposer_roles)
      ? row.proposer_roles.filter((r): r is string => typeof r === 'string')
      : [],
    proposerClaims:
      row.proposer_claims && typeof row.proposer_claims === 'object'
        ? (row.proposer_claims as Record<string, string>)
        : {},
  };
}
