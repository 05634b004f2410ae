import { BuiltinTools, CatalogStore, Metrics, withSpan } from '@app/registry';
import type { Principal, TenantCatalog, ToolCallOutcome } from '@app/registry';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { cut, META_TOOL_NAME, MetaToolError, TOOL_REVIEWER_ROLE } from './contract';
import type { GateViolation, ProposalInput } from './contract';
import { GeneratedDataAccess } from './data-access';
import { AUTO_APPROVER, META_TOOL_OPTIONS, resolveOptions } from './options';
import type { MetaToolOptions, ResolvedMetaToolOptions } from './options';
import { ProposalDecisions } from './decision.repository';
import { GeneratedToolRepository } from './generated-tool.repository';
import { PendingNameClash, ProposalRepository } from './proposal.repository';
import type { Proposal } from './proposal.repository';
import { RuntimeGate } from './runtime-gate';
import { ToolWriteQueue } from './serial-queue';
import { staticGate } from './static-gate';
import { ToolFiles } from './tool-files';
import { decisionOutcome, installedDecision, proposalOutcome, refused } from './proposal-outcomes';
import type { Decision, DecisionEvent } from './proposal-outcomes';

export { decisionOf } from './proposal-outcomes';
export type { Decision, DecisionEvent } from './proposal-outcomes';

/**
 * The meta_tool pipeline, one request at a time: static gate, human gate (a pending
 * proposal a reviewer decides on, or the explicit auto-approve setting), runtime gate,
 * install (row and file as one recoverable step). Every refusal says what was not done,
 * and every outcome reaches the proposer: `meta_tool {proposal_id}`, an optional wait on the
 * proposal call, and an event the MCP sessions turn into notifications.
 */
@Injectable()
export class MetaToolService {
  private readonly logger = new Logger('MetaTool');
  private readonly files: ToolFiles;
  readonly options: ResolvedMetaToolOptions;
  private readonly listeners = new Set<(event: DecisionEvent) => void>();

  constructor(
    readonly proposals: ProposalRepository,
    readonly decisions: ProposalDecisions,
    private readonly tools: GeneratedToolRepository,
    @Inject(META_TOOL_OPTIONS) options: MetaToolOptions,
    private readonly store: CatalogStore,
    private readonly builtins: BuiltinTools,
    private readonly runtime: RuntimeGate,
    private readonly data: GeneratedDataAccess,
    private readonly metrics: Metrics,
    private readonly queue: ToolWriteQueue,
  ) {
    this.options = resolveOptions(options);
    this.files = new ToolFiles(options.directory);
    metrics.describe(
      'gateway_meta_tool_gate_total',
      'meta_tool gate outcomes, by gate and outcome',
    );
    metrics.describe(
      'gateway_meta_tool_gate_duration_seconds',
      'time spent in each meta_tool gate, by gate and outcome',
    );
    if (options.autoApprove)
      this.logger.warn(
        'META_TOOL_AUTO_APPROVE=1: proposals skip the human gate and are recorded as approved by the setting',
      );
  }

  /** Subscribes to decisions; returns the unsubscribe function. */
  onDecision(listener: (event: DecisionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private announce(proposal: Proposal, decision: Decision): void {
    this.relay({ tenantId: proposal.tenantId, proposer: proposal.proposedBy, decision });
  }

  /** Tells this instance's listeners about a decision (made here, or relayed from another). */
  relay(event: DecisionEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.logger.warn(`a decision listener failed: ${String(err)}`);
      }
    }
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
    const violations = await this.timed('static', () =>
      this.staticViolations(catalog, proposer, input),
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
    const decision = await this.install(catalog, proposal, AUTO_APPROVER);
    this.announce(proposal, decision);
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

  async get(reviewer: Principal, id: string): Promise<Proposal> {
    await this.reviewerCatalog(reviewer);
    const proposal = await this.proposals.find(reviewer.tenantId, id);
    if (!proposal)
      throw new MetaToolError('PROPOSAL_NOT_FOUND', `no proposal ${id} in your tenant`);
    return proposal;
  }

  async listPending(reviewer: Principal): Promise<Proposal[]> {
    await this.reviewerCatalog(reviewer);
    return this.proposals.listPending(reviewer.tenantId);
  }

  approve(reviewer: Principal, id: string): Promise<Decision> {
    return this.decide(reviewer, id, async (catalog, proposal) =>
      this.install(catalog, proposal, reviewer.userId),
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
      this.gateDecided('human', 'rejected', proposal.id);
      return { proposal_id: proposal.id, name: proposal.name, status: 'rejected', message };
    });
  }

  private async decide(
    reviewer: Principal,
    id: string,
    act: (catalog: TenantCatalog, proposal: Proposal) => Promise<Decision>,
  ): Promise<Decision> {
    const catalog = await this.reviewerCatalog(reviewer);
    const proposal = await this.proposals.find(reviewer.tenantId, id);
    if (!proposal)
      throw new MetaToolError('PROPOSAL_NOT_FOUND', `no proposal ${id} in your tenant`);
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
        // never leave a claimed proposal hanging in 'installing', and never answer a 500
        const reference = Math.random().toString(36).slice(2, 10);
        this.logger.error(
          `deciding proposal ${proposal.id} failed (reference ${reference}): ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
        );
        const message = `the decision could not be completed (reference ${reference}); nothing was installed, the file set and the registry are unchanged`;
        await this.decisions
          .settle(reviewer.tenantId, proposal.id, 'failed', reviewer.userId, message)
          .catch(() => undefined);
        return {
          proposal_id: proposal.id,
          name: proposal.name,
          status: 'failed',
          message,
        } as Decision;
      }
    });
    this.announce(proposal, decision);
    return decision;
  }

  private async install(
    catalog: TenantCatalog,
    proposal: Proposal,
    approver: string,
  ): Promise<Decision> {
    this.gateDecided('human', 'approved', proposal.id);
    const tenantId = catalog.tenant.id;
    const fail = async (reason: string): Promise<Decision> => {
      const installed = (await this.tools.generatedNames(tenantId)).includes(proposal.name);
      const message = `the runtime gate refused ${proposal.name}: ${reason}. Nothing was installed; the file set and the registry are unchanged${installed ? ' and the installed version keeps working' : ''}.`;
      await this.decisions.settle(tenantId, proposal.id, 'failed', approver, message);
      return { proposal_id: proposal.id, name: proposal.name, status: 'failed', message };
    };
    const existing = await this.tools.generatedNames(tenantId);
    if (!existing.includes(proposal.name) && existing.length >= this.options.maxToolsPerTenant)
      return fail(
        `limit: your tenant has ${existing.length} generated tools, the most allowed (META_TOOL_MAX_TOOLS_PER_TENANT=${this.options.maxToolsPerTenant}); an operator must delete one first`,
      );
    // the smoke call runs as the proposer: their reports, their tables, their claims
    const scope = await this.data.scopeFor({
      tenantId,
      userId: proposal.proposedBy,
      roles: proposal.proposerRoles,
      claims: proposal.proposerClaims,
    });
    const verdict = await this.timed('runtime', () => this.runtime.check(scope, proposal));
    if (!verdict.ok) return fail(verdict.message);
    // row and file as one recoverable step: the file goes in place inside the transaction,
    // after the row; if anything fails before the commit, both are as they were
    const temp = await this.files.writeTemp(tenantId, proposal.name, proposal.source);
    let swap: { commit(): Promise<void>; undo(): Promise<void> } | undefined;
    try {
      await this.decisions.install(
        tenantId,
        proposal,
        {
          description: verdict.description,
          inputSchema: verdict.inputSchema,
          approvedBy: approver,
          smokeTested: verdict.smokeTested,
          smokePreview: verdict.preview,
        },
        async () => {
          swap = await this.files.swapIn(temp, tenantId, proposal.name);
        },
      );
    } catch (err) {
      await swap?.undo().catch(() => undefined);
      await this.files.discard(temp);
      this.logger.error(
        `installing ${tenantId}/${proposal.name} failed and was undone: ${err instanceof Error ? err.message : String(err)}`,
      );
      return fail('install: the tool could not be recorded (the database refused the write)');
    }
    await swap?.commit().catch(() => undefined);
    await this.files.discard(temp);
    // read-your-writes on this instance; the others hear the NOTIFY
    this.store.invalidate(tenantId);
    return installedDecision(proposal, verdict.smokeTested ? verdict.preview : null);
  }

  private async staticViolations(
    catalog: TenantCatalog,
    proposer: Principal,
    input: ProposalInput,
  ): Promise<GateViolation[]> {
    const reserved = new Set([
      META_TOOL_NAME,
      ...this.builtins.all().map((b) => b.definition.name),
    ]);
    // SQL literals are judged by the same rule as the runtime: the proposer's tables
    const scope = await this.data.scopeFor(proposer);
    const violations = staticGate({
      name: input.name,
      code: input.code,
      description: input.description,
      reservedNames: reserved,
      whitelist: {
        defaultSchema: catalog.tenant.dataSchema ?? '',
        tables: scope.sql.allowed,
      },
    });
    if (violations.length > 0) return violations;
    if (await this.proposals.hasOpenProposal(catalog.tenant.id, input.name)) {
      violations.push({
        rule: 'pending',
        message: `a proposal named "${input.name}" is already waiting for review`,
      });
      return violations;
    }
    const pending = await this.proposals.pendingCount(catalog.tenant.id, proposer.userId);
    if (pending >= this.options.maxPendingPerUser)
      violations.push({
        rule: 'limit',
        message: `you have ${pending} proposals waiting for review, the most allowed (META_TOOL_MAX_PENDING_PER_USER=${this.options.maxPendingPerUser}); wait for a decision first`,
      });
    const existing = await this.tools.generatedNames(catalog.tenant.id);
    if (!existing.includes(input.name) && existing.length >= this.options.maxToolsPerTenant)
      violations.push({
        rule: 'limit',
        message: `your tenant has ${existing.length} generated tools, the most allowed (META_TOOL_MAX_TOOLS_PER_TENANT=${this.options.maxToolsPerTenant})`,
      });
    return violations;
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

  /** Runs one gate in a span and reports its time, pass/fail and a log line. */
  private async timed<T>(gate: 'static' | 'runtime', fn: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await withSpan(`meta_tool.gate.${gate}`, { 'gateway.gate': gate }, fn);
    const passed = Array.isArray(result)
      ? result.length === 0
      : (result as { ok?: boolean }).ok !== false;
    const outcome = passed ? 'pass' : 'fail';
    this.metrics.observe(
      'gateway_meta_tool_gate_duration_seconds',
      { gate, outcome },
      (performance.now() - started) / 1000,
    );
    this.gateDecided(gate, outcome);
    return result;
  }

  /** One counter increment and one log line per gate decision (names and ids, never code). */
  private gateDecided(gate: string, outcome: string, proposalId?: string): void {
    this.metrics.inc('gateway_meta_tool_gate_total', { gate, outcome });
    this.logger.log(
      `meta_tool gate ${gate}: ${outcome}${proposalId ? ` (proposal ${proposalId})` : ''}`,
    );
  }
}
