import { staticGate } from '@app/meta-tool';
import type { ProposalDecisions } from '@app/meta-tool';
import type { GateViolation, Proposal } from '@app/meta-tool';
import type { TenantCatalog } from '@app/registry';
import type { DecidedProposal } from './console-types';

/** The tenant's last 50 decided proposals, newest first. */
export async function decidedProposals(
  proposals: Pick<ProposalDecisions, 'recentDecisions'>,
  tenantId: string,
): Promise<DecidedProposal[]> {
  const rows = await proposals.recentDecisions(tenantId, 50);
  return rows.map((r) => ({
    ...r,
    created_at: new Date(r.created_at as unknown as string).toISOString(),
    decided_at: r.decided_at === null ? null : new Date(r.decided_at).toISOString(),
  }));
}

/** Pending proposals with what the static gate finds in each (names taken, tables allowed). */
export function withStaticFindings(
  pending: Proposal[],
  reservedNames: string[],
  tenant: TenantCatalog['tenant'],
): Array<Proposal & { static_findings: GateViolation[] }> {
  const reserved = new Set(reservedNames);
  const whitelist = { defaultSchema: tenant.dataSchema ?? '', tables: tenant.allowedTables };
  return pending.map((p) => ({
    ...p,
    static_findings: staticGate({
      name: p.name,
      code: p.source,
      reservedNames: reserved,
      whitelist,
    }),
  }));
}
