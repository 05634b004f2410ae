import { CatalogStore } from '@app/registry';
import type { Principal, TenantCatalog } from '@app/registry';
import { Injectable, Logger } from '@nestjs/common';
import { MetaToolError, TOOL_REVIEWER_ROLE } from '../contract';
import { DecisionEvents } from './decision-events';
import { ProposalDecisions } from '../store/decision.repository';
import { GateMetrics } from './gate-metrics';
import { ProposalRepository } from '../store/proposal.repository';
import type { Proposal } from '../store/proposal.repository';
import type { Decision } from './proposal-outcomes';
import { ToolWriteQueue } from './serial-queue';
import { ToolInstaller } from './tool-installer';

/**
 * The human gate: a reviewer of the proposer's tenant (never the proposer) reads pending
 * proposals and decides on one. A decision claims the proposal first, so two reviewers
 * never both decide; whatever fails while deciding settles it as `failed` with a reference.
 */
@Injectable()
export class ProposalReview {
  private readonly logger = new Logger('MetaTool');

  constructor(
    private readonly proposals: ProposalRepository,
    private readonly decisions: ProposalDecisions,
    private readonly store: CatalogStore,
    private readonly queue: ToolWriteQueue,
    private readonly installer: ToolInstaller,
    private readonly gates: GateMetrics,
    private readonly events: DecisionEvents,
  ) {}

  async get(reviewer: Principal, id: string): Promise<Proposal> {
    await this.reviewerCatalog(reviewer);
    return this.found(reviewer, id);
  }

  async listPending(reviewer: Principal): Promise<Proposal[]> {
    await this.reviewerCatalog(reviewer);
    return this.proposals.listPending(reviewer.tenantId);
  }

  approve(reviewer: Principal, id: string): Promise<Decision> {
    return this.decide(reviewer, id, async (catalog, proposal) =>
      this.installer.install(catalog, proposal, reviewer.userId),
    );
  }

  reject(reviewer: Principal, id: string, reason = ''): Promise<Decision> {
    return this.decide(reviewer, id, async (_catalog, proposal) => {
      const message = `rejected${reason ? ` (${reason})` : ''}: nothing was imported, tested or written, and the registry is unchanged`;
      await this.decisions.settle(
        reviewer.tenantId,
        proposal.id,
        'rejected',
        reviewer.userId,
        message,
      );
      this.gates.decided('human', 'rejected', proposal.id);
      return { proposal_id: proposal.id, name: proposal.name, status: 'rejected', message };
    });
  }

  private async decide(
    reviewer: Principal,
    id: string,
    act: (catalog: TenantCatalog, proposal: Proposal) => Promise<Decision>,
  ): Promise<Decision> {
    const catalog = await this.reviewerCatalog(reviewer);
    const proposal = await this.found(reviewer, id);
    if (proposal.proposedBy === reviewer.userId) {
      throw new MetaToolError(
        'FORBIDDEN',
        'you proposed this tool; another reviewer of your tenant must decide on it',
      );
    }
    if (!(await this.decisions.claim(reviewer.tenantId, id, reviewer.userId))) {
      throw new MetaToolError(
        'PROPOSAL_NOT_PENDING',
        `proposal ${id} is ${proposal.status}, not pending`,
      );
    }
    const decision = await this.queue.run(async () => {
      try {
        return await act(catalog, proposal);
      } catch (err) {
        return this.failed(reviewer, proposal, err);
      }
    });
    this.events.announce(proposal, decision);
    return decision;
  }

  /** Never leaves a claimed proposal hanging in 'installing', and never answers a 500. */
  private async failed(reviewer: Principal, proposal: Proposal, err: unknown): Promise<Decision> {
    const reference = Math.random().toString(36).slice(2, 10);
    this.logger.error(
      `deciding proposal ${proposal.id} failed (reference ${reference}): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
    const message = `the decision could not be completed (reference ${reference}); nothing was installed, the file set and the registry are unchanged`;
    await this.decisions
      .settle(reviewer.tenantId, proposal.id, 'failed', reviewer.userId, message)
      .catch(() => undefined);
    return { proposal_id: proposal.id, name: proposal.name, status: 'failed', message };
  }

  private async found(reviewer: Principal, id: string): Promise<Proposal> {
    const proposal = await this.proposals.find(reviewer.tenantId, id);
    if (!proposal)
      throw new MetaToolError('PROPOSAL_NOT_FOUND', `no proposal ${id} in your tenant`);
    return proposal;
  }

  private async reviewerCatalog(reviewer: Principal): Promise<TenantCatalog> {
    const catalog = await this.store.catalog(reviewer.tenantId, { verify: true });
    if (!catalog.access.effectiveRoles(reviewer).includes(TOOL_REVIEWER_ROLE)) {
      throw new MetaToolError(
        'FORBIDDEN',
        `reviewing proposals needs the ${TOOL_REVIEWER_ROLE} role of your tenant`,
      );
    }
    return catalog;
  }
}
