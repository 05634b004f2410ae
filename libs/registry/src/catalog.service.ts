import type { DatabaseHandle } from '@app/db';
import { formatTool } from '@app/templates';
import type { ToolFormat } from '@app/templates';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { AccessPolicy, permissionSetKey } from './access-policy';
import { BuiltinTools } from './builtin-tools';
import { CatalogRepository } from './catalog.repository';
import { RegistryError, toolNotFound } from './errors';
import type { Principal } from './principal';
import { accessSubject } from './served-tool';
import type { ServedTool } from './served-tool';
import { TenantCatalog } from './tenant-catalog';
import { DATABASE } from './tokens';

/** A principal's view of its tenant: the catalog and the tools it may use, in a stable order. */
export interface VisibleSet {
  catalog: TenantCatalog;
  tools: ServedTool[];
  /** equal for every caller with the same tenant, catalog version, permissions and context */
  key: string;
}

@Injectable()
export class CatalogService {
  private readonly repository: CatalogRepository;
  private readonly catalogs = new Map<
    string,
    { version: number; catalog: Promise<TenantCatalog> }
  >();
  private readonly lists = new LRUCache<string, string>({
    max: 10_000,
    maxSize: 64 * 1024 * 1024,
    sizeCalculation: (body, key) => body.length + key.length,
  });
  private readonly logger = new Logger(CatalogService.name);
  /** invalid report versions already logged, so each is logged once */
  private readonly loggedInvalid = new Set<string>();

  constructor(
    @Inject(DATABASE) database: DatabaseHandle,
    private readonly builtins: BuiltinTools = new BuiltinTools(),
  ) {
    this.repository = new CatalogRepository(database);
  }

  /** The tenant's catalog at its current version, built once per version. */
  async catalog(tenantId: string): Promise<TenantCatalog> {
    const version = await this.repository.catalogVersion(tenantId);
    if (version === undefined)
      throw new RegistryError('TENANT_NOT_FOUND', 'the token names a tenant that does not exist');
    const cached = this.catalogs.get(tenantId);
    if (cached && cached.version >= version) return cached.catalog;
    const catalog = this.build(tenantId);
    this.catalogs.set(tenantId, { version, catalog });
    catalog.catch(() => {
      if (this.catalogs.get(tenantId)?.catalog === catalog) this.catalogs.delete(tenantId);
    });
    return catalog;
  }

  private async build(tenantId: string): Promise<TenantCatalog> {
    const tenant = await this.repository.findTenant(tenantId);
    if (!tenant)
      throw new RegistryError('TENANT_NOT_FOUND', 'the token names a tenant that does not exist');
    const [reports, access] = await Promise.all([
      this.repository.loadReports(tenantId),
      this.repository.loadAccess(tenantId),
    ]);
    const catalog = new TenantCatalog(tenant, reports, new AccessPolicy(access));
    this.logInvalidOnce(catalog);
    return catalog;
  }

  private logInvalidOnce(catalog: TenantCatalog): void {
    for (const [id, status] of catalog.statuses) {
      if (status.served || status.reason === 'disabled') continue;
      const key = `${catalog.tenant.id}:${id}:${catalog.reportVersion(id)}`;
      if (this.loggedInvalid.has(key)) continue;
      this.loggedInvalid.add(key);
      const problems = status.problems?.map((p) => p.message).join('; ') ?? '';
      this.logger.warn(
        `report ${catalog.tenant.id}/${id} is not served: ${status.reason}${problems ? `: ${problems}` : ''}`,
      );
    }
  }

  /** Every tool of the tenant before access checks; built-ins win a name clash. */
  private candidates(catalog: TenantCatalog): ServedTool[] {
    const merged = new Map<string, ServedTool>([
      ...[...catalog.tools.values()].map((report): [string, ServedTool] => [
        report.definition.name,
        { kind: 'report', definition: report.definition, report },
      ]),
      ...this.builtins
        .all()
        .map((builtin): [string, ServedTool] => [
          builtin.definition.name,
          { kind: 'builtin', definition: builtin.definition, builtin },
        ]),
    ]);
    return [...merged.values()];
  }

  async visibleSet(principal: Principal, context?: string): Promise<VisibleSet> {
    const catalog = await this.catalog(principal.tenantId);
    const { access } = catalog;
    if (context !== undefined && !access.hasContext(context)) {
      const valid = access.contextNames();
      throw new RegistryError(
        'UNKNOWN_CONTEXT',
        `unknown business context "${context}"; valid contexts: ${valid.join(', ') || 'none'}`,
        { valid_contexts: valid },
      );
    }
    const roles = access.effectiveRoles(principal);
    const tools = this.candidates(catalog)
      .filter((tool) => access.decide(principal, roles, accessSubject(tool)).allowed)
      .filter((tool) => context === undefined || access.inContext(context, accessSubject(tool)))
      .filter((tool) => tool.kind !== 'report' || tool.report.isBindableFor(principal))
      .sort((a, b) => (a.definition.name < b.definition.name ? -1 : 1));
    const user = access.hasUserRules(principal.userId) ? principal.userId : undefined;
    const permissions = permissionSetKey(roles, Object.keys(principal.claims), user);
    const key = [principal.tenantId, catalog.version, permissions, context ?? '*'].join(':');
    return { catalog, tools, key };
  }

  /** The list response body, serialised once per (visible set, format) and then reused. */
  async listBody(
    principal: Principal,
    format: ToolFormat,
    context?: string,
  ): Promise<{ body: string; key: string }> {
    const visible = await this.visibleSet(principal, context);
    const cacheKey = `${visible.key}:${format}`;
    let body = this.lists.get(cacheKey);
    if (body === undefined) {
      body = JSON.stringify({ tools: visible.tools.map((t) => formatTool(t.definition, format)) });
      this.lists.set(cacheKey, body);
    }
    return { body, key: visible.key };
  }

  /** A tool in the caller's own visible set; missing and forbidden are the same error. */
  async resolve(
    principal: Principal,
    name: string,
  ): Promise<{ catalog: TenantCatalog; tool: ServedTool }> {
    const visible = await this.visibleSet(principal);
    const tool = visible.tools.find((t) => t.definition.name === name);
    if (!tool) throw toolNotFound(name);
    return { catalog: visible.catalog, tool };
  }

  /** Every tool of the tenant (admins' view), for explanations. */
  async tenantTools(tenantId: string): Promise<{ catalog: TenantCatalog; tools: ServedTool[] }> {
    const catalog = await this.catalog(tenantId);
    return { catalog, tools: this.candidates(catalog) };
  }
}
