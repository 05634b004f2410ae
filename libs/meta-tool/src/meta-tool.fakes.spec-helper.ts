import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AccessPolicy } from '@app/registry';
import { Logger } from '@nestjs/common';
import type { BuiltinTools, CatalogStore, Metrics, Principal, TenantCatalog } from '@app/registry';
import type { ProposalInput } from './contract';
import type { GeneratedDataAccess, RunScope } from './run/data-access';
import { GeneratedToolControls } from './review/generated-tool-controls';
import { DecisionEvents } from './review/decision-events';
import { GateMetrics } from './review/gate-metrics';
import { MetaToolService } from './meta-tool.service';
import { ProposalReview } from './review/proposal-review';
import { StaticChecks } from './propose/static-checks';
import { ToolInstaller } from './review/tool-installer';
import type { MetaToolOptions } from './options';
import { PendingNameClash } from './store/proposal.repository';
import type { Installation, ProposalDecisions } from './store/decision.repository';
import type { GeneratedToolRepository } from './store/generated-tool.repository';
import type { Proposal, ProposalRepository } from './store/proposal.repository';
import type { RuntimeGate, RuntimeVerdict } from './review/runtime-gate';
import { ToolWriteQueue } from './review/serial-queue';
import { sha256 } from './store/tool-files';

/** Fakes for MetaToolService's unit spec: no Postgres, no sandbox, no catalog loading. */

export const TENANT = 'acme';
export const author: Principal = {
  tenantId: TENANT,
  userId: 'ann',
  roles: ['tool_author'],
  claims: { region: 'EU' },
};
export const reviewer: Principal = {
  tenantId: TENANT,
  userId: 'rev',
  roles: ['tool_reviewer'],
  claims: {},
};
export const analyst: Principal = { tenantId: TENANT, userId: 'bob', roles: [], claims: {} };

export const toolCode = (body = "return ctx.query('SELECT count(*) FROM orders');") =>
  `export default { name: 't', description: 'd', schema: { type: 'object' }, async run(args, ctx) { ${body} } };`;

/** A tenant's access policy with just these roles (no grants, no stored user roles). */
export function fakeAccess(
  roles: Array<{ name: string; isAdmin: boolean }> = [
    { name: 'tool_author', isAdmin: false },
    { name: 'tool_reviewer', isAdmin: false },
    { name: 'admin', isAdmin: true },
  ],
): AccessPolicy {
  return new AccessPolicy({ roles, userRoles: [], userGrants: [], roleGrants: [], contexts: [] });
}

/** The tenant as the service sees it: its schema and who holds which role. */
export function fakeCatalog(): TenantCatalog {
  const access = fakeAccess();
  return {
    tenant: { id: TENANT, dataSchema: 'tenant_acme', allowedTables: ['orders', 'secrets'] },
    access,
  } as unknown as TenantCatalog;
}

/** Proposals and generated tools in memory; the writes the service asked for are recorded. */
export class FakeProposals {
  enabled = true;
  readonly proposals = new Map<string, Proposal>();
  readonly generated = new Set<string>();
  readonly settled: Array<{ id: string; status: string; actor: string; outcome: string }> = [];
  readonly installed: Array<{ proposal: Proposal; installation: Installation }> = [];
  /** set to make every read fail, as a lost connection would */
  failure: Error | undefined;
  /** set to make the next create lose a race with another instance */
  clashOnCreate = false;
  private next = 1;

  private check(): void {
    if (this.failure) throw this.failure;
  }

  add(partial: Partial<Proposal> & { name: string }): Proposal {
    const id = `00000000-0000-4000-8000-${String(this.next++).padStart(12, '0')}`;
    const proposal: Proposal = {
      id,
      tenantId: TENANT,
      description: '',
      source: toolCode(),
      sha256: sha256(toolCode()),
      testArgs: null,
      proposedBy: author.userId,
      status: 'pending',
      reviewedBy: null,
      outcome: null,
      createdAt: '2026-12-01T00:00:00Z',
      proposerRoles: [...author.roles],
      proposerClaims: { ...author.claims },
      ...partial,
    };
    this.proposals.set(id, proposal);
    return proposal;
  }

  async tenantEnabled(): Promise<boolean> {
    this.check();
    return this.enabled;
  }

  async create(
    tenantId: string,
    proposer: string,
    input: ProposalInput,
    identity: { roles: readonly string[]; claims: Readonly<Record<string, string>> },
  ): Promise<Proposal> {
    this.check();
    if (this.clashOnCreate) throw new PendingNameClash(input.name);
    return this.add({
      tenantId,
      name: input.name,
      source: input.code,
      sha256: sha256(input.code),
      proposedBy: proposer,
      proposerRoles: [...identity.roles],
      proposerClaims: { ...identity.claims },
    });
  }

  async find(tenantId: string, id: string): Promise<Proposal | undefined> {
    this.check();
    const found = this.proposals.get(id);
    return found?.tenantId === tenantId ? { ...found } : undefined;
  }

  async hasOpenProposal(_tenantId: string, name: string): Promise<boolean> {
    return [...this.proposals.values()].some(
      (p) => p.name === name && (p.status === 'pending' || p.status === 'installing'),
    );
  }

  async pendingCount(_tenantId: string, proposer: string): Promise<number> {
    return [...this.proposals.values()].filter(
      (p) => p.proposedBy === proposer && p.status === 'pending',
    ).length;
  }

  async generatedNames(): Promise<string[]> {
    return [...this.generated];
  }

  async listPending(): Promise<Proposal[]> {
    return [...this.proposals.values()].filter((p) => p.status === 'pending');
  }

  async listTools() {
    return [...this.generated].map((name) => ({ name, status: 'active' }));
  }

  async setToolStatus(_tenantId: string, name: string): Promise<boolean> {
    return this.generated.has(name);
  }

  async deleteTool(_t: string, name: string, _by: string, between: () => Promise<void>) {
    if (!this.generated.delete(name)) return false;
    await between();
    return true;
  }

  async setTenantEnabled(_tenantId: string, enabled: boolean): Promise<void> {
    this.enabled = enabled;
  }

  async claim(_tenantId: string, id: string, by: string): Promise<boolean> {
    const proposal = this.proposals.get(id);
    if (proposal?.status !== 'pending') return false;
    Object.assign(proposal, { status: 'installing', reviewedBy: by });
    return true;
  }

  async settle(
    _tenantId: string,
    id: string,
    status: 'rejected' | 'failed',
    actor: string,
    outcome: string,
  ): Promise<void> {
    this.settled.push({ id, status, actor, outcome });
    Object.assign(this.proposals.get(id)!, { status, outcome });
  }

  async install(
    _tenantId: string,
    proposal: Proposal,
    installation: Installation,
    between: () => Promise<void>,
  ): Promise<void> {
    await between();
    this.installed.push({ proposal, installation });
    this.generated.add(proposal.name);
    Object.assign(this.proposals.get(proposal.id)!, {
      status: 'installed',
      outcome: installation.smokePreview,
    });
  }
}

/** A runtime gate that answers what the test set, and remembers whom it ran as. */
export class FakeRuntimeGate {
  verdict: RuntimeVerdict = {
    ok: true,
    description: 'counts orders',
    inputSchema: { type: 'object' },
    smokeTested: true,
    preview: '{"count":3}',
  };
  failure: Error | undefined;
  readonly ranAs: Principal[] = [];

  async check(scope: RunScope): Promise<RuntimeVerdict> {
    this.ranAs.push(scope.principal);
    if (this.failure) throw this.failure;
    return this.verdict;
  }
}

/** The service and the operator controls over the fakes; `options` override the defaults of a fresh gateway. */
export function setup(options: Partial<MetaToolOptions> = {}) {
  const proposals = new FakeProposals();
  const runtime = new FakeRuntimeGate();
  const catalog = fakeCatalog();
  const invalidated: string[] = [];
  const counted: Array<Record<string, string>> = [];
  const store = {
    catalog: async () => catalog,
    invalidate: (tenantId: string) => invalidated.push(tenantId),
  } as unknown as CatalogStore;
  const builtins = { all: () => [{ definition: { name: 'list_reports' } }] };
  // the proposer's SQL reach: `orders` through a visible report, never `secrets`
  const data = {
    scopeFor: async (principal: Principal) => ({
      principal,
      catalog,
      reports: new Map(),
      sql: { defaultSchema: 'tenant_acme', allowed: ['orders'], boundBy: new Map() },
    }),
  };
  const metrics = {
    describe: () => undefined,
    observe: () => undefined,
    inc: (_name: string, labels: Record<string, string>) => counted.push(labels),
  };
  const directory = mkdtempSync(path.join(tmpdir(), 'meta-tool-spec-'));
  const settings = { directory, timeoutMs: 1000, memoryMb: 32, autoApprove: false, ...options };
  const queue = new ToolWriteQueue();
  // one fake plays the three repositories: proposals, decisions, installed tools
  const tools = proposals as unknown as GeneratedToolRepository;
  const gates = new GateMetrics(metrics as unknown as Metrics);
  const events = new DecisionEvents();
  const installer = new ToolInstaller(
    tools,
    proposals as unknown as ProposalDecisions,
    settings,
    store,
    runtime as unknown as RuntimeGate,
    data as unknown as GeneratedDataAccess,
    gates,
  );
  const review = new ProposalReview(
    proposals as unknown as ProposalRepository,
    proposals as unknown as ProposalDecisions,
    store,
    queue,
    installer,
    gates,
    events,
  );
  const checks = new StaticChecks(
    builtins as unknown as BuiltinTools,
    data as unknown as GeneratedDataAccess,
    proposals as unknown as ProposalRepository,
    tools,
    settings,
  );
  const service = new MetaToolService(
    proposals as unknown as ProposalRepository,
    proposals as unknown as ProposalDecisions,
    review,
    tools,
    settings,
    store,
    checks,
    installer,
    gates,
    queue,
    events,
  );
  const controls = new GeneratedToolControls(tools, settings, store, queue);
  return {
    service,
    controls,
    proposals,
    runtime,
    invalidated,
    counted,
    directory,
    installer,
    review,
    events,
    catalog,
  };
}

/**
 * `setup` for a spec file that makes many: Nest's logger is quiet while the file runs, and
 * every tool directory made is removed after it. Call at the top level of the spec file.
 */
export function setupPerFile(): typeof setup {
  const directories: string[] = [];
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => {
    Logger.overrideLogger(['log', 'error', 'warn']);
    for (const dir of directories) rmSync(dir, { recursive: true, force: true });
  });
  return (options = {}) => {
    const made = setup(options);
    directories.push(made.directory);
    return made;
  };
}
