import type { DatabaseHandle } from '@app/db';
import { BuiltinTools, CatalogStore, DATABASE, Metrics, withSpan } from '@app/registry';
import type { Principal, TenantCatalog, ToolCallOutcome } from '@app/registry';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { cut, META_TOOL_NAME, MetaToolError, TOOL_REVIEWER_ROLE } from './contract';
import type { GateViolation, ProposalInput } from './contract';
import { AUTO_APPROVER, META_TOOL_OPTIONS } from './options';
import type { MetaToolOptions } from './options';
import { PendingNameClash, ProposalRepository } from './proposal.repository';
import type { Proposal } from './proposal.repository';
import { RuntimeGate } from './runtime-gate';
import { SerialQueue } from './serial-queue';
import { staticGate } from './static-gate';

export interface Decision {
  proposal_id: string;
  name: string;
  status: 'installed' | 'failed' | 'rejected';
  message: string;
  smoke_preview?: string | null;
}

/**
 * The meta_tool pipeline, one request at a time: static gate, human gate (a pending
 * proposal a reviewer decides on, or the explicit auto-approve setting), runtime gate,
 * atomic install. Every refusal says what was not done.
 */
@Injectable()
export class MetaToolService {
  private readonly logger = new Logger('MetaTool');
  private readonly proposals: ProposalRepository;
  private readonly queue = new SerialQueue();

  constructor(
    @Inject(DATABASE) database: DatabaseHandle,
    @Inject(META_TOOL_OPTIONS) private readonly options: MetaToolOptions,
    private readonly store: CatalogStore,
    private readonly builtins: BuiltinTools,
    private readonly runtime: RuntimeGate,
    private readonly metrics: Metrics,
  ) {
    this.proposals = new ProposalRepository(database);
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

  /** meta_tool's call: static gate, then a pending proposal (or auto-approval). */
  propose(proposer: Principal, input: ProposalInput): Promise<ToolCallOutcome> {
    return this.queue.run(async () => {
      const catalog = await this.store.catalog(proposer.tenantId, { verify: true });
      const violations = await this.timed('static', () => this.staticViolations(catalog, input));
      if (violations.length > 0) {
        return refused(
          `the static gate refused the proposal: ${violations.map((v) => `${v.rule}: ${v.message}`).join('; ')}. Nothing was stored, imported, run or written.`,
        );
      }
      let proposal: Proposal;
      try {
        proposal = await this.proposals.create(proposer.tenantId, proposer.userId, input);
      } catch (err) {
        if (!(err instanceof PendingNameClash)) throw err;
        return refused(
          `the static gate refused the proposal: pending: a proposal named "${input.name}" is already waiting for review. Nothing was stored, imported, run or written.`,
        );
      }
      if (!this.options.autoApprove) return pendingOutcome(proposal);
      this.logger.warn(
        `auto-approving proposal ${proposal.id} (${proposal.name}) because META_TOOL_AUTO_APPROVE=1`,
      );
      const decision = await this.install(catalog, proposal, AUTO_APPROVER);
      return decisionOutcome(decision);
    });
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
      await this.proposals.settle(
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
    if (!(await this.proposals.claim(reviewer.tenantId, id, reviewer.userId))) {
      throw new MetaToolError(
        'PROPOSAL_NOT_PENDING',
        `proposal ${id} is ${proposal.status}, not pending`,
      );
    }
    return this.queue.run(async () => {
      try {
        return await act(catalog, proposal);
      } catch (err) {
        // never leave a claimed proposal hanging in 'installing'
        const message = `the decision could not be completed (${err instanceof Error ? err.message : String(err)}); nothing was installed`;
        await this.proposals
          .settle(reviewer.tenantId, proposal.id, 'failed', reviewer.userId, message)
          .catch(() => undefined);
        throw err;
      }
    });
  }

  private async install(
    catalog: TenantCatalog,
    proposal: Proposal,
    approver: string,
  ): Promise<Decision> {
    this.gateDecided('human', 'approved', proposal.id);
    const verdict = await this.timed('runtime', () => this.runtime.check(catalog.tenant, proposal));
    if (!verdict.ok) {
      const message = `the runtime gate refused ${proposal.name}: ${verdict.message}. Nothing was installed; the file set and the registry are unchanged${(await this.proposals.generatedNames(catalog.tenant.id)).includes(proposal.name) ? ' and the installed version keeps working' : ''}.`;
      await this.proposals.settle(catalog.tenant.id, proposal.id, 'failed', approver, message);
      return { proposal_id: proposal.id, name: proposal.name, status: 'failed', message };
    }
    await this.proposals.install(catalog.tenant.id, proposal, {
      description: verdict.description,
      inputSchema: verdict.inputSchema,
      approvedBy: approver,
      smokeTested: verdict.smokeTested,
      smokePreview: verdict.preview,
    });
    // read-your-writes on this instance; the others hear the NOTIFY
    this.store.invalidate(catalog.tenant.id);
    const smoke = verdict.smokeTested
      ? `its smoke call returned ${verdict.preview}`
      : 'it was never smoke-tested (no testArgs)';
    const message = `installed ${proposal.name}; ${smoke}. It is visible from the next tool list on, not in the round that created it.`;
    return {
      proposal_id: proposal.id,
      name: proposal.name,
      status: 'installed',
      message,
      smoke_preview: verdict.preview,
    };
  }

  private async staticViolations(
    catalog: TenantCatalog,
    input: ProposalInput,
  ): Promise<GateViolation[]> {
    const reserved = new Set([
      META_TOOL_NAME,
      ...this.builtins.all().map((b) => b.definition.name),
    ]);
    const violations = staticGate({
      name: input.name,
      code: input.code,
      reservedNames: reserved,
      whitelist: {
        defaultSchema: catalog.tenant.dataSchema ?? '',
        tables: catalog.tenant.allowedTables,
      },
    });
    if (
      violations.length === 0 &&
      (await this.proposals.hasOpenProposal(catalog.tenant.id, input.name))
    ) {
      violations.push({
        rule: 'pending',
        message: `a proposal named "${input.name}" is already waiting for review`,
      });
    }
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

function refused(message: string): ToolCallOutcome {
  return { tool: META_TOOL_NAME, is_error: true, error: { code: 'REFUSED', message } };
}

function pendingOutcome(proposal: Proposal): ToolCallOutcome {
  return {
    tool: META_TOOL_NAME,
    is_error: false,
    text: cut(
      `pending approval ${proposal.id}; nothing was imported, run or written. A reviewer of your tenant (role tool_reviewer) must approve "${proposal.name}"; once installed it appears in your next tool list.`,
      1000,
    ),
    result: {
      proposal_id: proposal.id,
      name: proposal.name,
      status: 'pending',
      sha256: proposal.sha256,
    },
  };
}

function decisionOutcome(decision: Decision): ToolCallOutcome {
  if (decision.status !== 'installed') return refused(decision.message);
  return { tool: META_TOOL_NAME, is_error: false, text: decision.message, result: { ...decision } };
}
