import {
  META_TOOL_NAME,
  MetaToolError,
  MetaToolService,
  staticGate,
  TOOL_REVIEWER_ROLE,
} from '@app/meta-tool';
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
  templateProblems,
} from '@app/registry';
import type { CallBucket, Principal, TenantCatalog, ToolCallOutcome } from '@app/registry';
import {
  formatTool,
  parseReportDocument,
  ReportTool,
  TemplateError,
  TOOL_FORMATS,
} from '@app/templates';
import type { ReportMetadata, TemplateProblem, ToolFormat } from '@app/templates';
import { Injectable } from '@nestjs/common';
import { offendingPart } from './offending-part';
import type { OffendingPart } from './offending-part';

export interface ValidationProblem extends TemplateProblem {
  /** where in sql_template the problem points, when the message names something in it */
  part?: OffendingPart;
}

export interface ValidationVerdict {
  ok: boolean;
  problems: ValidationProblem[];
  /** present when ok: the tool as each provider gets it, and what the model reads */
  tool?: {
    name: string;
    description: string;
    contexts: string[];
    formats: Record<ToolFormat, object>;
  };
  /** whether a report with this id exists already (save replaces it) */
  exists: boolean;
}

export interface ConsoleCatalogEntry {
  id: string;
  name: string;
  category: string;
  contexts: string[];
  served: boolean;
  reason?: string;
  problems?: TemplateProblem[];
  version: number;
  updated_at: string;
}

export interface DecidedProposal {
  id: string;
  name: string;
  proposed_by: string;
  reviewed_by: string | null;
  status: string;
  outcome: string | null;
  created_at: string;
  decided_at: string | null;
}

/** Largest page "Try it" shows: a preview, not an export. */
const TRY_PAGE_SIZE = 20;

/**
 * What the admin console needs beyond the public admin API: dry-run validation, a read-only
 * preview run, the catalog with contexts, "who sees what" for any user of the caller's
 * tenant, the review queue with its static findings and history, and the tenant's health.
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
  ) {}

  /** The caller's tenant, read fresh, once the caller is known to be its admin. */
  async adminCatalog(admin: Principal): Promise<TenantCatalog> {
    const catalog = await this.store.catalog(admin.tenantId, { verify: true });
    if (!catalog.access.isAdmin(catalog.access.effectiveRoles(admin))) {
      throw new RegistryError('FORBIDDEN', 'the admin console needs an admin role of your tenant');
    }
    return catalog;
  }

  private contextsOf(catalog: TenantCatalog, id: string, category: string): string[] {
    return catalog.access
      .contextNames()
      .filter((c) => catalog.access.inContext(c, { id, category }));
  }

  async catalog(admin: Principal): Promise<{ version: number; reports: ConsoleCatalogEntry[] }> {
    const reports = await this.reports.list(admin);
    const catalog = await this.adminCatalog(admin);
    return {
      version: catalog.version,
      reports: reports
        .map((r) => ({ ...r, contexts: this.contextsOf(catalog, r.id, r.category) }))
        .sort((a, b) => (a.id < b.id ? -1 : 1)),
    };
  }

  /** The PUT's judgement without the write. */
  async validate(admin: Principal, id: string, document: unknown): Promise<ValidationVerdict> {
    const catalog = await this.adminCatalog(admin);
    const exists = catalog.reportVersion(id) !== undefined;
    const judged = this.judge(catalog, id, document);
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
        contexts: this.contextsOf(catalog, tool.report.id, tool.report.category),
        formats,
      },
    };
  }

  /** Runs the (unsaved) document's template read-only with sample arguments: the first page. */
  async tryIt(admin: Principal, id: string, body: unknown): Promise<ToolCallOutcome> {
    const catalog = await this.adminCatalog(admin);
    const { report, arguments: args } = (body && typeof body === 'object' ? body : {}) as {
      report?: unknown;
      arguments?: unknown;
    };
    const judged = this.judge(catalog, id, report);
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
    return this.executor.call(
      catalog,
      judged.tool,
      { ...sample, page: 1, page_size: pageSize },
      admin,
    );
  }

  private judge(
    catalog: TenantCatalog,
    id: string,
    document: unknown,
  ): { ok: true; tool: ReportTool } | { ok: false; problems: ValidationProblem[] } {
    const sql =
      document &&
      typeof document === 'object' &&
      typeof (document as { sql_template?: unknown }).sql_template === 'string'
        ? (document as { sql_template: string }).sql_template
        : '';
    const withParts = (problems: TemplateProblem[]): ValidationProblem[] =>
      problems.map((p) => {
        const part = offendingPart(sql, p.message);
        return part ? { ...p, part } : { ...p };
      });
    const parsed = parseReportDocument(catalog.tenant.id, id, document);
    if (!parsed.ok) return { ok: false, problems: withParts(parsed.problems) };
    let tool: ReportTool;
    try {
      tool = new ReportTool(parsed.metadata);
    } catch (err) {
      if (err instanceof TemplateError) return { ok: false, problems: withParts(err.problems) };
      throw err;
    }
    const problems = templateProblems(parsed.metadata as ReportMetadata, catalog.tenant);
    if (problems.length > 0) return { ok: false, problems: withParts(problems) };
    return { ok: true, tool };
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
    const reserved = new Set([
      META_TOOL_NAME,
      ...this.builtins.all().map((b) => b.definition.name),
    ]);
    const whitelist = {
      defaultSchema: catalog.tenant.dataSchema ?? '',
      tables: catalog.tenant.allowedTables,
    };
    const rows = await this.metaTool.proposals.recentDecisions(reviewer.tenantId, 50);
    return {
      pending: pending.map((p) => ({
        ...p,
        static_findings: staticGate({
          name: p.name,
          code: p.source,
          reservedNames: reserved,
          whitelist,
        }),
      })),
      history: rows.map((r) => ({
        ...r,
        created_at: new Date(r.created_at as unknown as string).toISOString(),
        decided_at: r.decided_at === null ? null : new Date(r.decided_at).toISOString(),
      })),
    };
  }

  /** The caller's tenant at a glance; cache figures are this instance's, across tenants. */
  async health(admin: Principal): Promise<{
    tenant: string;
    catalog_version: number;
    reports: { total: number; served: number; not_served: number };
    calls: CallBucket[];
    cache: {
      list_requests: { l1: number; l2: number; build: number };
      list_hit_rate: number | null;
      l2: { hits: number; misses: number; errors: number; hit_rate: number | null };
      catalog_builds: { postgres: number; redis: number; refresh: number };
      listener_up: boolean;
    };
  }> {
    const { reports } = await this.catalog(admin);
    const catalog = await this.adminCatalog(admin);
    const m = (name: string, labels: Record<string, string> = {}) =>
      this.metrics.value(name, labels);
    const lists = {
      // the hot paths count their answers here too (CatalogService.cachedListBody)
      l1: m('gateway_list_requests_total', { level: 'l1' }),
      l2: m('gateway_list_requests_total', { level: 'l2' }),
      build: m('gateway_list_requests_total', { level: 'build' }),
    };
    const listTotal = lists.l1 + lists.l2 + lists.build;
    const l2 = {
      hits: m('gateway_l2_hits_total'),
      misses: m('gateway_l2_misses_total'),
      errors: m('gateway_l2_errors_total'),
    };
    const served = reports.filter((r) => r.served).length;
    return {
      tenant: admin.tenantId,
      catalog_version: catalog.version,
      reports: { total: reports.length, served, not_served: reports.length - served },
      calls: this.activity.recent(admin.tenantId),
      cache: {
        list_requests: lists,
        list_hit_rate: listTotal === 0 ? null : (lists.l1 + lists.l2) / listTotal,
        l2: { ...l2, hit_rate: l2.hits + l2.misses === 0 ? null : l2.hits / (l2.hits + l2.misses) },
        catalog_builds: {
          postgres: m('gateway_catalog_builds_total', { source: 'postgres' }),
          redis: m('gateway_catalog_builds_total', { source: 'redis' }),
          refresh: m('gateway_catalog_builds_total', { source: 'refresh' }),
        },
        listener_up: this.store.isListening,
      },
    };
  }
}
