import { BuiltinTools } from '@app/registry';
import type { Principal, TenantCatalog } from '@app/registry';
import { Inject, Injectable } from '@nestjs/common';
import { META_TOOL_NAME } from '../contract';
import type { GateViolation, ProposalInput } from '../contract';
import { GeneratedDataAccess } from '../run/data-access';
import { GeneratedToolRepository } from '../store/generated-tool.repository';
import { META_TOOL_OPTIONS, resolveOptions } from '../options';
import type { MetaToolOptions, ResolvedMetaToolOptions } from '../options';
import { ProposalRepository } from '../store/proposal.repository';
import { staticGate } from './static-gate';

/**
 * The static gate over a tenant: `staticGate` (pure) with the names reserved here and the
 * proposer's own tables, then what needs the metadata: a proposal of the name already
 * waiting, and the per-user and per-tenant limits.
 */
@Injectable()
export class StaticChecks {
  private readonly options: ResolvedMetaToolOptions;

  constructor(
    private readonly builtins: BuiltinTools,
    private readonly data: GeneratedDataAccess,
    private readonly proposals: ProposalRepository,
    private readonly tools: GeneratedToolRepository,
    @Inject(META_TOOL_OPTIONS) options: MetaToolOptions,
  ) {
    this.options = resolveOptions(options);
  }

  async violations(
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
    violations.push(...(await this.limits(catalog.tenant.id, proposer.userId, input.name)));
    return violations;
  }

  /** The proposer's pending proposals and the tenant's generated tools, against their caps. */
  private async limits(tenantId: string, userId: string, name: string): Promise<GateViolation[]> {
    const violations: GateViolation[] = [];
    const pending = await this.proposals.pendingCount(tenantId, userId);
    if (pending >= this.options.maxPendingPerUser)
      violations.push({
        rule: 'limit',
        message: `you have ${pending} proposals waiting for review, the most allowed (META_TOOL_MAX_PENDING_PER_USER=${this.options.maxPendingPerUser}); wait for a decision first`,
      });
    const existing = await this.tools.generatedNames(tenantId);
    if (!existing.includes(name) && existing.length >= this.options.maxToolsPerTenant)
      violations.push({
        rule: 'limit',
        message: `your tenant has ${existing.length} generated tools, the most allowed (META_TOOL_MAX_TOOLS_PER_TENANT=${this.options.maxToolsPerTenant})`,
      });
    return violations;
  }
}
