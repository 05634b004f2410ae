import { META_TOOL_NAME, MetaToolError, MetaToolService, TOOL_REVIEWER_ROLE } from '@app/meta-tool';
import type { GateViolation, Proposal } from '@app/meta-tool';
import {
  BuiltinTools,
  CallActivity,
  CatalogService,
  CatalogStore,
  Metrics,
  RegistryError,
  ReportAdminService,
  ReportExecutor,
} from '@app/registry';
import type { Principal, TenantCatalog, ToolCallOutcome } from '@app/registry';
import { formatTool, TOOL_FORMATS } from '@app/templates';
import type { ToolFormat } from '@app/templates';
import { Injectable } from '@nestjs/common';
import { ReportCharts } from '../charts/report-charts';
import type { ChartAttachment } from '../charts/report-charts';
import { tenantHealth } from './console-health';
import type { TenantHealth } from './console-health';
import { decidedProposals, withStaticFindings } from './console-review';
import type { ConsoleCatalogEntry, DecidedProposal, ValidationVerdict } from './console-types';
import { contextsOf, judgeReport } from './report-judge';

export type {
  ConsoleCatalogEntry,
  DecidedProposal,
  ValidationProblem,
  ValidationVerdict,
} from './console-types';

/** Largest page "Try it" shows: a preview, not an export. */
const TRY_PAGE_SIZE = 20;

/**
 * What the admin console needs beyond the public admin API: dry-run validation, a read-only
 * preview run, the catalog with contexts, "who sees what" for any user of the caller's
 * tenant, the review queue with its static findings and history, and the tenant's health.
 * (Its usage reads are ConsoleUsageService's.)
 * Every method works inside the caller's tenant and checks the caller's role first.
 */
@Injectable()
export class ConsoleAdminService {
  constructor(
    private readonly store: CatalogStore,
    private readonly catalogs: CatalogService,
    private readonly reports: ReportAdminService,
    private readonly executor: ReportExecutor,
    private readonly builtins: BuiltinTools,
    private readonly metaTool: MetaToolService,
    private readonly metrics: Metrics,
    private readonly activity: CallActivity,
    private readonly charts: ReportCharts,
  ) {}

  /** The caller's tenant, read fresh, once the caller is known to be its admin. */
  async adminCatalog(admin: Principal): Promise<TenantCatalog> {
    const catalog = await this.store.catalog(admin.tenantId, { verify: true });
    if (!catalog.access.isAdmin(catalog.access.effectiveRoles(admin))) {
      throw new RegistryError('FORBIDDEN', 'the admin console needs an admin role of your tenant');
    }
    return catalog;
  }

  async catalog(admin: Principal): Promise<{ version: number; reports: ConsoleCatalogEntry[] }> {
    const reports = await this.reports.list(admin);
    const catalog = await this.adminCatalog(admin);
    return {
      version: catalog.version,
      reports: reports
        .map((r) => ({ ...r, contexts: contextsOf(catalog, r.id, r.category) }))
        .sort((a, b) => (a.id < b.id ? -1 : 1)),
    };
  }

  /** The PUT's judgement without the write. */
  async validate(admin: Principal, id: string, document: unknown): Promise<ValidationVerdict> {
    const catalog = await this.adminCatalog(admin);
    const exists = catalog.reportVersion(id) !== undefined;
    const judged = judgeReport(catalog, id, document);
    if (!judged.ok) return { ok: false, problems: judged.problems, exists };
    const { tool } = judged;
    const formats = Object.fromEntries(
      TOOL_FORMATS.map((f) => [f, formatTool(tool.definition, f)]),
    ) as Record<ToolFormat, object>;
    return {
      ok: true,
      problems: [],
      exists,
      tool: {
        name: tool.definition.name,
        description: tool.definition.description,
        contexts: contextsOf(catalog, tool.report.id, tool.report.category),
        formats,
      },
    };
  }

  /** Runs the (unsaved) document's template read-only with sample arguments: the first page. */
  async tryIt(
    admin: Principal,
    id: string,
    body: unknown,
  ): Promise<ToolCallOutcome & { chart?: ChartAttachment }> {
    const catalog = await this.adminCatalog(admin);
    const { report, arguments: args } = (body && typeof body === 'object' ? body : {}) as {
      report?: unknown;
      arguments?: unknown;
    };
    const judged = judgeReport(catalog, id, report);
    if (!judged.ok) {
      throw new RegistryError(
        'INVALID_REPORT',
        `the report cannot run: ${judged.problems.map((p) => p.message).join('; ')}`,
        { problems: judged.problems },
      );
    }
    const sample = args && typeof args === 'object' && !Array.isArray(args) ? args : {};
    const requested = (sample as { page_size?: unknown }).page_size;
    const pageSize =
      typeof requested === 'number' && requested >= 1 ? Math.min(requested, TRY_PAGE_SIZE) : 10;
    const outcome = await this.executor.call(
      catalog,
      judged.tool,
      { ...sample, page: 1, page_size: pageSize },
      admin,
    );
    // the preview draws the page as the report's chart, as a REST call with ?chart=svg would
    if (outcome.is_error || outcome.text !== undefined) return outcome;
    return { ...outcome, chart: await this.charts.draw(judged.tool.report, outcome.result, 'svg') };
  }

  /** The tool list a user (or a set of roles and claims) of the caller's tenant gets. */
  async accessTools(
    admin: Principal,
    subject: { user: string; roles: string[]; claims: Record<string, string> },
    context: string | undefined,
  ): Promise<{
    user: string;
    effective_roles: string[];
    tools: Array<{ name: string; kind: string; description: string }>;
  }> {
    const catalog = await this.adminCatalog(admin);
    const principal: Principal = {
      tenantId: admin.tenantId,
      userId: subject.user,
      roles: subject.roles,
      claims: subject.claims,
    };
    const visible = await this.catalogs.visibleSet(principal, context);
    return {
      user: subject.user,
      effective_roles: catalog.access.effectiveRoles(principal),
      tools: visible.tools.map((t) => ({
        name: t.definition.name,
        kind: t.kind,
        description: t.definition.description.split('\n')[0].slice(0, 200),
      })),
    };
  }

  /** Pending proposals with the static gate's findings, and the tenant's decisions. */
  async review(reviewer: Principal): Promise<{
    pending: Array<Proposal & { static_findings: GateViolation[] }>;
    history: DecidedProposal[];
  }> {
    const pending = await this.metaTool.listPending(reviewer); // checks the reviewer role
    const catalog = await this.store.catalog(reviewer.tenantId, { verify: true });
    if (!catalog.access.effectiveRoles(reviewer).includes(TOOL_REVIEWER_ROLE)) {
      throw new MetaToolError(
        'FORBIDDEN',
        `reviewing proposals needs the ${TOOL_REVIEWER_ROLE} role of your tenant`,
      );
    }
    const reserved = [META_TOOL_NAME, ...this.builtins.all().map((b) => b.definition.name)];
    return {
      pending: withStaticFindings(pending, reserved, catalog.tenant),
      history: await decidedProposals(this.metaTool.decisions, reviewer.tenantId),
    };
  }

  /** The caller's tenant at a glance; cache figures are this instance's, across tenants. */
  async health(admin: Principal): Promise<TenantHealth> {
    const { reports } = await this.catalog(admin);
    const catalog = await this.adminCatalog(admin);
    return tenantHealth(
      this.metrics,
      {
        id: admin.tenantId,
        version: catalog.version,
        reports,
        calls: this.activity.recent(admin.tenantId),
      },
      this.store.isListening,
    );
  }
}
