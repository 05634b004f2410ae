import { CatalogStore } from '@app/registry';
import type { Principal, ToolCallOutcome } from '@app/registry';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { cut } from './contract';
import type { ProposalInput } from './contract';
import { DecisionEvents } from './review/decision-events';
import { ProposalDecisions } from './store/decision.repository';
import { GateMetrics } from './review/gate-metrics';
import { GeneratedToolRepository } from './store/generated-tool.repository';
import { AUTO_APPROVER, META_TOOL_OPTIONS, resolveOptions } from './options';
import type { MetaToolOptions, ResolvedMetaToolOptions } from './options';
import { PendingNameClash, ProposalRepository } from './store/proposal.repository';
import type { Proposal } from './store/proposal.repository';
import { ProposalReview } from './review/proposal-review';
import { ToolWriteQueue } from './review/serial-queue';
import { StaticChecks } from './propose/static-checks';
import { ToolInstaller } from './review/tool-installer';
import { decisionOutcome, proposalOutcome, refused } from './review/proposal-outcomes';
import type { Decision, DecisionEvent } from './review/proposal-outcomes';

export { decisionOf } from './review/proposal-outcomes';
export type { Decision, DecisionEvent } from './review/proposal-outcomes';

/**
 * The meta_tool pipeline, one request at a time: static gate (here), human gate (a pending
 * proposal a reviewer decides on, ProposalReview, or the explicit auto-approve setting),
 * runtime gate and install (ToolInstaller: row and file as one recoverable step). Every refusal says what was not done,
 * and every outcome reaches the proposer: `meta_tool {proposal_id}`, an optional wait on the
 * proposal call, and an event the MCP sessions turn into notifications.
 */
@Injectable()
export class MetaToolService {
  private readonly logger = new Logger('MetaTool');
  readonly options: ResolvedMetaToolOptions;

  constructor(
    readonly proposals: ProposalRepository,
    readonly decisions: ProposalDecisions,
    readonly review: ProposalReview,
    private readonly tools: GeneratedToolRepository,
    @Inject(META_TOOL_OPTIONS) options: MetaToolOptions,
    private readonly store: CatalogStore,
    private readonly checks: StaticChecks,
    private readonly installer: ToolInstaller,
    private readonly gates: GateMetrics,
    private readonly queue: ToolWriteQueue,
    private readonly events: DecisionEvents,
  ) {
    this.options = resolveOptions(options);
    if (options.autoApprove)
      this.logger.warn(
        'META_TOOL_AUTO_APPROVE=1: proposals skip the human gate and are recorded as approved by the setting',
      );
  }

  /** Subscribes to decisions; returns the unsubscribe function. */
  onDecision(listener: (event: DecisionEvent) => void): () => void {
    return this.events.onDecision(listener);
  }

  /** Tells this instance's listeners about a decision (made here, or relayed from another). */
  relay(event: DecisionEvent): void {
    this.events.relay(event);
  }

  /**
   * meta_tool's call: a proposal's state (`proposal_id`), or a new proposal through the static
   * gate. Whatever goes wrong inside a gate comes back as a refusal the model can read.
   */
  async propose(proposer: Principal, input: ProposalInput): Promise<ToolCallOutcome> {
    try {
      if (!this.options.enabled)
        return refused(
          'meta_tool is switched off on this gateway (META_TOOL_ENABLED=0); nothing was stored',
        );
      if (!(await this.tools.tenantEnabled(proposer.tenantId)))
        return refused(
          'meta_tool is switched off for your tenant by an operator; nothing was stored, imported, run or written',
        );
      if (input.proposal_id !== undefined) return await this.status(proposer, input.proposal_id);
      if (typeof input.name !== 'string' || typeof input.code !== 'string')
        return refused(
          'give either { "proposal_id" } to ask about a proposal, or { "name", "code" } to propose a tool. Nothing was stored, imported, run or written.',
        );
      const first = await this.queue.run(() => this.proposeInQueue(proposer, input));
      if ('outcome' in first) return first.outcome;
      return await this.waitForDecision(proposer, first.proposal);
    } catch (err) {
      const reference = Math.random().toString(36).slice(2, 10);
      this.logger.error(
        `meta_tool proposal by ${proposer.tenantId}/${proposer.userId} failed (reference ${reference}): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
      return refused(
        `the proposal could not be handled (reference ${reference}); nothing was installed. Try again, or tell an administrator the reference`,
      );
    }
  }

  private async proposeInQueue(
    proposer: Principal,
    input: ProposalInput,
  ): Promise<{ outcome: ToolCallOutcome } | { proposal: Proposal }> {
    const catalog = await this.store.catalog(proposer.tenantId, { verify: true });
    const violations = await this.gates.timed('static', () =>
      this.checks.violations(catalog, proposer, input),
    );
    if (violations.length > 0) {
      return {
        outcome: refused(
          `the static gate refused the proposal: ${violations.map((v) => `${v.rule}: ${v.message}`).join('; ')}. Nothing was stored, imported, run or written.`,
        ),
      };
    }
    let proposal: Proposal;
    try {
      proposal = await this.proposals.create(proposer.tenantId, proposer.userId, input, {
        roles: proposer.roles,
        claims: proposer.claims,
      });
    } catch (err) {
      if (!(err instanceof PendingNameClash)) throw err;
      return {
        outcome: refused(
          `the static gate refused the proposal: pending: a proposal named "${input.name}" is already waiting for review. Nothing was stored, imported, run or written.`,
        ),
      };
    }
    if (!this.options.autoApprove) return { proposal };
    this.logger.warn(
      `auto-approving proposal ${proposal.id} (${proposal.name}) because META_TOOL_AUTO_APPROVE=1`,
    );
    const decision = await this.installer.install(catalog, proposal, AUTO_APPROVER);
    this.events.announce(proposal, decision);
    return { outcome: decisionOutcome(decision) };
  }

  /** Waits up to META_TOOL_APPROVAL_WAIT_MS for the human decision, then answers what is known. */
  private async waitForDecision(proposer: Principal, proposal: Proposal): Promise<ToolCallOutcome> {
    const until = Date.now() + this.options.approvalWaitMs;
    let current = proposal;
    while (
      Date.now() < until &&
      (current.status === 'pending' || current.status === 'installing')
    ) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(200, until - Date.now())));
      current = (await this.proposals.find(proposer.tenantId, proposal.id)) ?? current;
    }
    return proposalOutcome(current);
  }

  /** `meta_tool {proposal_id}`: the proposer's own proposal, its state and full gate outcome. */
  private async status(proposer: Principal, id: string): Promise<ToolCallOutcome> {
    const proposal =
      typeof id === 'string' ? await this.proposals.find(proposer.tenantId, id) : undefined;
    if (!proposal || proposal.proposedBy !== proposer.userId)
      return refused(`no proposal ${cut(String(id), 80)} of yours in your tenant`);
    return proposalOutcome(proposal);
  }

  get(reviewer: Principal, id: string): Promise<Proposal> {
    return this.review.get(reviewer, id);
  }

  listPending(reviewer: Principal): Promise<Proposal[]> {
    return this.review.listPending(reviewer);
  }

  approve(reviewer: Principal, id: string): Promise<Decision> {
    return this.review.approve(reviewer, id);
  }

  reject(reviewer: Principal, id: string, reason = ''): Promise<Decision> {
    return this.review.reject(reviewer, id, reason);
  }
}
