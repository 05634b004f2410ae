import {
  argumentBoundsProblem,
  mergePatch,
  parseReportDocument,
  ReportTool,
  TemplateError,
  toReportDocument,
} from '@app/templates';
import type { ReportDocument, ReportMetadata, TemplateProblem } from '@app/templates';
import { Injectable } from '@nestjs/common';
import { CatalogRepository } from '../catalog/load/catalog.repository';
import { CatalogStore } from '../catalog/catalog-store';
import { RegistryError } from '../errors';
import type { Principal } from '../access/principal';
import { ReportRepository } from './report.repository';
import type { ReportServingStatus, TenantCatalog } from '../catalog/model/tenant-catalog';
import { reportScope, templateProblems } from '../catalog/judge/template-check';

export interface ReportStatusView {
  served: boolean;
  reason?: string;
  problems?: TemplateProblem[];
  version: number;
  updated_at: string;
}

export interface AdminReportView {
  report: ReportDocument;
  status: ReportStatusView;
}

/**
 * Onboarding and removal of reports through the API, for admins of the caller's tenant.
 * A write is judged exactly as the registry judges a report inserted by SQL (metadata
 * rules, parameter binding, SQL guard) and refused whole, with every reason, if it fails.
 */
@Injectable()
export class ReportAdminService {
  constructor(
    private readonly reports: ReportRepository,
    private readonly catalogRows: CatalogRepository,
    private readonly store: CatalogStore,
  ) {}

  async list(
    admin: Principal,
  ): Promise<
    Array<{ id: string; name: string; category: string; datasource?: string } & ReportStatusView>
  > {
    const catalog = await this.adminCatalog(admin);
    const stored = await this.catalogRows.loadReports(admin.tenantId);
    return stored.map((s) => ({
      id: s.metadata.id,
      name: s.metadata.name,
      category: s.metadata.category,
      ...(s.metadata.datasource !== undefined ? { datasource: s.metadata.datasource } : {}),
      ...statusView(catalog, s.metadata, s.updatedAt),
    }));
  }

  async get(admin: Principal, id: string): Promise<AdminReportView> {
    const catalog = await this.adminCatalog(admin);
    const [stored] = await this.catalogRows.loadReports(admin.tenantId, { ids: [id] });
    if (!stored) throw new RegistryError('REPORT_NOT_FOUND', `no report "${id}" in your tenant`);
    return {
      report: toReportDocument(stored.metadata, stored.status),
      status: statusView(catalog, stored.metadata, stored.updatedAt),
    };
  }

  async put(
    admin: Principal,
    id: string,
    document: unknown,
  ): Promise<AdminReportView & { created: boolean }> {
    const catalog = await this.adminCatalog(admin);
    const parsed = this.accept(catalog, admin, id, document);
    const created = await this.reports.upsert(admin.tenantId, parsed.metadata, parsed.status);
    this.store.invalidate(admin.tenantId);
    return { created, ...(await this.get(admin, id)) };
  }

  /**
   * A partial update (JSON Merge Patch, RFC 7396) of an existing report: the members the patch
   * names change, `null` resets an optional one, every other member (those a client does not
   * know included) stays as stored. The merged document is judged as a PUT would be, and written
   * only if no other write came in between (else merged again onto the newer one).
   */
  async patch(admin: Principal, id: string, patch: unknown): Promise<AdminReportView> {
    const catalog = await this.adminCatalog(admin);
    const tooBig = argumentBoundsProblem(patch, { maxDepth: 16, maxBytes: 1024 * 1024 });
    if (tooBig !== undefined)
      throw invalid([{ rule: 'document', message: `the patch: ${tooBig}` }]);
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
      throw invalid([{ rule: 'document', message: 'the patch must be a JSON object' }]);
    for (let attempt = 0; attempt < 5; attempt++) {
      const [stored] = await this.catalogRows.loadReports(admin.tenantId, { ids: [id] });
      if (!stored) throw new RegistryError('REPORT_NOT_FOUND', `no report "${id}" in your tenant`);
      const current = toReportDocument(stored.metadata, stored.status);
      const merged = mergePatch(current, patch);
      const parsed = this.accept(catalog, admin, id, merged);
      // nothing changes (a save of an untouched form): no write, no new version
      if (JSON.stringify(merged) === JSON.stringify(current)) return this.get(admin, id);
      const outcome = await this.reports.replaceAt(
        admin.tenantId,
        parsed.metadata,
        parsed.status,
        stored.metadata.version,
      );
      if (outcome === 'missing')
        throw new RegistryError('REPORT_NOT_FOUND', `no report "${id}" in your tenant`);
      if (outcome === 'replaced') {
        this.store.invalidate(admin.tenantId);
        return this.get(admin, id);
      }
    }
    throw new RegistryError(
      'REPORT_CHANGED',
      `report "${id}" changed five times while this patch was applied; send it again`,
    );
  }

  /** A whole document, bounded, parsed and judged, or INVALID_REPORT with every reason. */
  private accept(catalog: TenantCatalog, admin: Principal, id: string, document: unknown) {
    const tooBig = argumentBoundsProblem(document, { maxDepth: 16, maxBytes: 1024 * 1024 });
    if (tooBig !== undefined)
      throw invalid([{ rule: 'document', message: `the document: ${tooBig}` }]);
    const parsed = parseReportDocument(admin.tenantId, id, document);
    if (!parsed.ok) throw invalid(parsed.problems);
    const problems = this.judge(parsed.metadata, catalog);
    if (problems.length > 0) throw invalid(problems);
    return parsed;
  }

  async delete(admin: Principal, id: string): Promise<void> {
    await this.adminCatalog(admin);
    if (!(await this.reports.delete(admin.tenantId, id)))
      throw new RegistryError('REPORT_NOT_FOUND', `no report "${id}" in your tenant`);
    this.store.invalidate(admin.tenantId);
  }

  async setStatus(
    admin: Principal,
    id: string,
    status: 'active' | 'disabled',
  ): Promise<AdminReportView> {
    await this.adminCatalog(admin);
    if (!(await this.reports.setStatus(admin.tenantId, id, status)))
      throw new RegistryError('REPORT_NOT_FOUND', `no report "${id}" in your tenant`);
    this.store.invalidate(admin.tenantId);
    return this.get(admin, id);
  }

  private judge(metadata: ReportMetadata, catalog: TenantCatalog): TemplateProblem[] {
    const scope = reportScope(catalog.tenant, metadata);
    try {
      new ReportTool(metadata, scope.dialect);
    } catch (err) {
      if (err instanceof TemplateError) return err.problems;
      // whatever else the document makes our code throw is the document's problem: a 422
      return [{ rule: 'unreadable', message: `the report could not be read: ${String(err)}` }];
    }
    return templateProblems(metadata, scope);
  }

  /** The caller's tenant, fresh from Postgres, once the caller is known to be its admin. */
  private async adminCatalog(admin: Principal): Promise<TenantCatalog> {
    const catalog = await this.store.catalog(admin.tenantId, { verify: true });
    if (!catalog.access.isAdmin(catalog.access.effectiveRoles(admin))) {
      throw new RegistryError('FORBIDDEN', 'the admin API needs an admin role of your tenant');
    }
    return catalog;
  }
}

function invalid(problems: TemplateProblem[]): RegistryError {
  return new RegistryError(
    'INVALID_REPORT',
    `the report was not saved: ${problems.map((p) => p.message).join('; ')}`,
    { problems },
  );
}

function statusView(
  catalog: TenantCatalog,
  metadata: ReportMetadata,
  updatedAt: string,
): ReportStatusView {
  // A write may be newer than the catalog this instance holds; say "pending" rather than guess.
  const status: ReportServingStatus | undefined =
    catalog.reportVersion(metadata.id) === metadata.version
      ? catalog.reportStatus(metadata.id)
      : undefined;
  const base = { version: metadata.version, updated_at: updatedAt };
  if (!status)
    return { served: false, reason: 'not loaded yet; read it again in a moment', ...base };
  return status.served
    ? { served: true, ...base }
    : {
        served: false,
        reason: status.reason,
        ...(status.problems ? { problems: status.problems } : {}),
        ...base,
      };
}
