import { toolFailure, toolText } from '@app/registry';
import type { ToolCallOutcome } from '@app/registry';
import { cut, META_TOOL_NAME, MetaToolError } from '../contract';
import type { Proposal } from '../store/proposal.repository';

/**
 * What a proposal's state and a decision look like to the model and to sessions: the
 * decision record, and the tool outcomes `meta_tool` answers with (pure functions).
 */
export interface Decision {
  proposal_id: string;
  name: string;
  status: 'installed' | 'failed' | 'rejected';
  message: string;
  smoke_preview?: string | null;
}

/** A decided proposal, for whoever listens (the MCP sessions of the proposer). */
export interface DecisionEvent {
  tenantId: string;
  proposer: string;
  decision: Decision;
  /** decided on another instance and relayed here (see DecisionFeed) */
  remote?: boolean;
}

export function notFound(name: string): MetaToolError {
  return new MetaToolError(
    'GENERATED_TOOL_NOT_FOUND',
    `no generated tool named ${cut(JSON.stringify(name), 80)} in your tenant`,
  );
}

export function refused(message: string): ToolCallOutcome {
  return toolFailure(META_TOOL_NAME, 'REFUSED', message);
}

/** A proposal's state in the model's terms: pending, or the full outcome of the gates. */
export function installedDecision(proposal: Proposal, preview: string | null): Decision {
  const smoke =
    preview !== null
      ? `its smoke call returned ${preview}`
      : 'it was never smoke-tested (no testArgs), and its description says so to every model';
  return {
    proposal_id: proposal.id,
    name: proposal.name,
    status: 'installed',
    message: `installed ${proposal.name}; ${smoke}. It is visible from the next tool list on, not in the round that created it.`,
    smoke_preview: preview,
  };
}

/** The decision a decided proposal's row records; undefined while it is still undecided. */
export function decisionOf(proposal: Proposal): Decision | undefined {
  if (proposal.status === 'installed') return installedDecision(proposal, proposal.outcome);
  if (proposal.status !== 'failed' && proposal.status !== 'rejected') return undefined;
  return {
    proposal_id: proposal.id,
    name: proposal.name,
    status: proposal.status,
    message: proposal.outcome ?? `proposal ${proposal.id} is ${proposal.status}`,
  };
}

export function proposalOutcome(proposal: Proposal): ToolCallOutcome {
  const result = {
    proposal_id: proposal.id,
    name: proposal.name,
    status: proposal.status,
    sha256: proposal.sha256,
  };
  switch (proposal.status) {
    case 'pending':
    case 'installing':
      return toolText(
        META_TOOL_NAME,
        cut(
          `pending approval ${proposal.id}; nothing was imported, run or written. A reviewer of your tenant (role tool_reviewer) must approve "${proposal.name}"; once installed it appears in your next tool list. Ask again with {"proposal_id":"${proposal.id}"}.`,
          1000,
        ),
        result,
      );
    case 'installed':
      return toolText(
        META_TOOL_NAME,
        cut(
          `installed ${proposal.name}; ${proposal.outcome === null ? 'it was never smoke-tested (no testArgs)' : `its smoke call returned ${proposal.outcome}`}. It is visible from the next tool list on.`,
          1000,
        ),
        { ...result, smoke_preview: proposal.outcome },
      );
    default:
      return refused(proposal.outcome ?? `proposal ${proposal.id} is ${proposal.status}`);
  }
}

export function decisionOutcome(decision: Decision): ToolCallOutcome {
  if (decision.status !== 'installed') return refused(decision.message);
  return toolText(META_TOOL_NAME, decision.message, { ...decision });
}
