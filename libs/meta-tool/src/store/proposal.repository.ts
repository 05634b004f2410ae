import { randomUUID } from 'node:crypto';
import type { ProposalStatus } from '@app/db';
import { activeTraceId } from '@app/registry';
import { Injectable } from '@nestjs/common';
import { auditIn, GatewayRepository } from './gateway.repository';
import type { ProposalInput } from '../contract';
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

export class PendingNameClash extends Error {}

const UNIQUE_VIOLATION = '23505';

/** The proposer's roles and claims when they proposed (the runtime gate runs as them). */
export interface ProposerIdentity {
  roles: readonly string[];
  claims: Readonly<Record<string, string>>;
}

/** A new proposal's row, but for its id and tenant. */
function proposalRow(proposer: string, input: ProposalInput, identity: ProposerIdentity) {
  return {
    name: input.name,
    description: input.description ?? '',
    source: input.code,
    sha256: sha256(input.code),
    test_args: input.testArgs === undefined ? null : JSON.stringify(input.testArgs),
    proposed_by: proposer,
    proposer_roles: JSON.stringify(identity.roles),
    proposer_claims: JSON.stringify(identity.claims),
    trace_id: activeTraceId() ?? null,
  };
}

/**
 * Proposals as they are filed and read: new ones (with their audit row), one by id, the open
 * ones. Deciding on them is ProposalDecisions'. Tenant first, always.
 */
@Injectable()
export class ProposalRepository extends GatewayRepository {
  async create(
    tenantId: string,
    proposer: string,
    input: ProposalInput,
    identity: ProposerIdentity = { roles: [], claims: {} },
  ): Promise<Proposal> {
    const id = randomUUID();
    try {
      // the proposal and its audit row commit together or not at all
      await this.database.db.transaction().execute(async (trx) => {
        await trx
          .withSchema('gateway')
          .insertInto('tool_proposals')
          .values({ id, tenant_id: tenantId, ...proposalRow(proposer, input, identity) })
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
