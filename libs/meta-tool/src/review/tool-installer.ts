import { CatalogStore } from '@app/registry';
import type { TenantCatalog } from '@app/registry';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { GeneratedDataAccess } from '../run/data-access';
import { ProposalDecisions } from '../store/decision.repository';
import { GateMetrics } from './gate-metrics';
import { GeneratedToolRepository } from '../store/generated-tool.repository';
import { META_TOOL_OPTIONS, resolveOptions } from '../options';
import type { MetaToolOptions } from '../options';
import type { Proposal } from '../store/proposal.repository';
import { installedDecision } from './proposal-outcomes';
import type { Decision } from './proposal-outcomes';
import { RuntimeGate } from './runtime-gate';
import type { RuntimeVerdict } from './runtime-gate';

type PassedVerdict = Extract<RuntimeVerdict, { ok: true }>;
import { ToolFiles } from '../store/tool-files';

/**
 * An approved proposal's install: the tenant's tool limit, the runtime gate run as the
 * proposer, then row and file as one recoverable step. Every refusal is settled as
 * `failed` and says that nothing changed. Runs inside the tool write queue (the caller's).
 */
@Injectable()
export class ToolInstaller {
  private readonly logger = new Logger('MetaTool');
  private readonly files: ToolFiles;
  private readonly maxToolsPerTenant: number;

  constructor(
    private readonly tools: GeneratedToolRepository,
    private readonly decisions: ProposalDecisions,
    @Inject(META_TOOL_OPTIONS) options: MetaToolOptions,
    private readonly store: CatalogStore,
    private readonly runtime: RuntimeGate,
    private readonly data: GeneratedDataAccess,
    private readonly gates: GateMetrics,
  ) {
    this.files = new ToolFiles(options.directory);
    this.maxToolsPerTenant = resolveOptions(options).maxToolsPerTenant;
  }

  async install(catalog: TenantCatalog, proposal: Proposal, approver: string): Promise<Decision> {
    this.gates.decided('human', 'approved', proposal.id);
    const tenantId = catalog.tenant.id;
    const fail = (reason: string) => this.fail(tenantId, proposal, approver, reason);
    const existing = await this.tools.generatedNames(tenantId);
    if (!existing.includes(proposal.name) && existing.length >= this.maxToolsPerTenant)
      return fail(
        `limit: your tenant has ${existing.length} generated tools, the most allowed (META_TOOL_MAX_TOOLS_PER_TENANT=${this.maxToolsPerTenant}); an operator must delete one first`,
      );
    // the smoke call runs as the proposer: their reports, their tables, their claims
    const scope = await this.data.scopeFor({
      tenantId,
      userId: proposal.proposedBy,
      roles: proposal.proposerRoles,
      claims: proposal.proposerClaims,
    });
    const verdict = await this.gates.timed('runtime', () => this.runtime.check(scope, proposal));
    if (!verdict.ok) return fail(verdict.message);
    if (!(await this.record(tenantId, proposal, verdict, approver)))
      return fail('install: the tool could not be recorded (the database refused the write)');
    // read-your-writes on this instance; the others hear the NOTIFY
    this.store.invalidate(tenantId);
    return installedDecision(proposal, verdict.smokeTested ? verdict.preview : null);
  }

  /**
   * Row and file as one recoverable step: the file goes in place inside the transaction,
   * after the row; if anything fails before the commit, both are as they were (false).
   */
  private async record(
    tenantId: string,
    proposal: Proposal,
    verdict: PassedVerdict,
    approver: string,
  ): Promise<boolean> {
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
      return false;
    }
    await swap?.commit().catch(() => undefined);
    await this.files.discard(temp);
    return true;
  }

  /** The runtime gate's refusal, settled as failed; an installed version keeps working. */
  private async fail(
    tenantId: string,
    proposal: Proposal,
    approver: string,
    reason: string,
  ): Promise<Decision> {
    const installed = (await this.tools.generatedNames(tenantId)).includes(proposal.name);
    const message = `the runtime gate refused ${proposal.name}: ${reason}. Nothing was installed; the file set and the registry are unchanged${installed ? ' and the installed version keeps working' : ''}.`;
    await this.decisions.settle(tenantId, proposal.id, 'failed', approver, message);
    return { proposal_id: proposal.id, name: proposal.name, status: 'failed', message };
  }
}
