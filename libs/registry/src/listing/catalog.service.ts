import { formatTool } from '@app/templates';
import type { ToolDefinition, ToolFormat } from '@app/templates';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { permissionSetKey } from '../access/access-policy';
import { BuiltinTools } from './builtin-tools';
import { CatalogStore } from '../catalog/catalog-store';
import { RegistryError, toolNotFound } from '../errors';
import { LIST_SHAPER } from './list-shaper';
import type { ListShaper } from './list-shaper';
import { Metrics } from '../metrics';
import type { Principal } from '../access/principal';
import { accessSubject } from './served-tool';
import type { ServedTool } from './served-tool';
import { SharedCache } from '../catalog/shared-cache';
import { listKey, openListBody, seal } from '../catalog/l2-values';
import { ListCache } from './list-cache';
import { ToolIndex } from './tool-index';
import type { TenantCatalog } from '../catalog/tenant-catalog';
import { DEFAULT_REGISTRY_OPTIONS, REGISTRY_OPTIONS } from '../tokens';
import type { RegistryOptions } from '../tokens';

/** A principal's view of its tenant: the catalog and the tools it may use, in a stable order. */
export interface VisibleSet {
  catalog: TenantCatalog;
  tools: ServedTool[];
  /** equal for every caller with the same tenant, catalog version, permissions and context */
  key: string;
}

/**
 * Tool lists per caller. The serialised list body is cached per toolset key (L1 here, L2 in
 * Redis), so a warm request costs a key computation and a map lookup: no serialisation, no
 * database, no Redis. Concurrent misses of one key build once.
 */
@Injectable()
export class CatalogService {
  /** UTF-8 bytes, ready for the socket */
  private readonly lists = new ListCache<Buffer>({
    max: 10_000,
    maxSize: 64 * 1024 * 1024,
    sizeOf: (body, key) => body.length + key.length,
  });
  private readonly indexes = new WeakMap<TenantCatalog, ToolIndex>();
  private readonly options: RegistryOptions;
  private readonly countL1: () => void;

  constructor(
    readonly store: CatalogStore,
    private readonly builtins: BuiltinTools,
    private readonly shared: SharedCache,
    private readonly metrics: Metrics,
    @Optional() @Inject(REGISTRY_OPTIONS) options: RegistryOptions | null = null,
    @Optional() @Inject(LIST_SHAPER) private readonly shaper: ListShaper | null = null,
  ) {
    this.options = options ?? DEFAULT_REGISTRY_OPTIONS;
    metrics.describe(
      'gateway_list_requests_total',
      'tool list requests, by cache level that answered',
    );
    this.countL1 = metrics.counter('gateway_list_requests_total', { level: 'l1' });
  }

  catalog(tenantId: string): Promise<TenantCatalog> {
    return this.store.catalog(tenantId);
  }

  private index(catalog: TenantCatalog): ToolIndex {
    let index = this.indexes.get(catalog);
    if (!index || index.builtinsVersion !== this.builtins.version) {
      index = new ToolIndex(
        catalog.reports,
        catalog.generated.values(),
        this.builtins.all(),
        this.builtins.version,
      );
      this.indexes.set(catalog, index);
    }
    return index;
  }

  /** Whether this caller may use this tool (in this context), by the same rules as the list. */
  private permits(
    catalog: TenantCatalog,
    principal: Principal,
    roles: string[],
    tool: ServedTool,
    context: string | undefined,
  ): boolean {
    const { access } = catalog;
    if (!access.decide(principal, roles, accessSubject(tool)).allowed) return false;
    // built-ins (meta_tool for its authors) are listed whatever business context is asked for
    if (
      tool.kind !== 'builtin' &&
      context !== undefined &&
      !access.inContext(context, accessSubject(tool))
    )
      return false;
    return tool.kind !== 'report' || tool.report.isBindableFor(principal);
  }

  /** The toolset key, from memory alone: tenant, catalog version, permission set, context. */
  private toolsetKey(
    catalog: TenantCatalog,
    principal: Principal,
    context: string | undefined,
  ): { key: string; roles: string[] } {
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
    const user = access.hasUserRules(principal.userId) ? principal.userId : undefined;
    const permissions = permissionSetKey(roles, Object.keys(principal.claims), user);
    return {
      key: [principal.tenantId, catalog.version, permissions, context ?? '*'].join(':'),
      roles,
    };
  }

  async visibleSet(principal: Principal, context?: string): Promise<VisibleSet> {
    const catalog = await this.store.catalog(principal.tenantId);
    const { key, roles } = this.toolsetKey(catalog, principal, context);
    const index = this.index(catalog);
    const reach = catalog.access.reach(principal, roles);
    const candidates = reach.everything
      ? index.all
      : index.reachable(reach.categories, reach.names);
    const tools = candidates
      .filter((tool) => this.permits(catalog, principal, roles, tool, context))
      .sort((a, b) => (a.definition.name < b.definition.name ? -1 : 1));
    return { catalog, tools, key };
  }

  /** The caller's toolset key (validating the context): equal keys, equal lists. */
  async toolsetKeyFor(principal: Principal, context?: string): Promise<string> {
    const catalog = await this.store.catalog(principal.tenantId);
    return this.toolsetKey(catalog, principal, context).key;
  }

  /**
   * The caller's toolset key from memory alone, or undefined when memory cannot tell (the
   * catalog is not held or not vouched for, or the context is unknown): then ask
   * `toolsetKeyFor`, which reads what it must and explains a refusal.
   */
  cachedToolsetKey(principal: Principal, context?: string): string | undefined {
    const catalog = this.store.current(principal.tenantId);
    if (!catalog || (context !== undefined && !catalog.access.hasContext(context)))
      return undefined;
    return this.toolsetKey(catalog, principal, context).key;
  }

  /** The tenant's business contexts, from memory; undefined when its catalog is not held. */
  cachedContexts(tenantId: string): Array<{ name: string; description: string }> | undefined {
    return this.store.current(tenantId)?.access.contextList();
  }

  /** A list body already in L1, without any I/O; undefined when `listBody` must be asked. */
  cachedListBody(
    principal: Principal,
    format: ToolFormat,
    context?: string,
  ): { body: Buffer; key: string } | undefined {
    const key = this.cachedToolsetKey(principal, context);
    const body = key === undefined ? undefined : this.lists.get(`${key}:${format}`);
    if (key === undefined || body === undefined) return undefined;
    this.countL1();
    return { body, key };
  }

  /** The list response body, serialised once per (toolset, format) and then reused. */
  async listBody(
    principal: Principal,
    format: ToolFormat,
    context?: string,
  ): Promise<{ body: Buffer; key: string }> {
    const hit = this.cachedListBody(principal, format, context);
    if (hit) return hit;
    const catalog = await this.store.catalog(principal.tenantId);
    const { key } = this.toolsetKey(catalog, principal, context);
    const cacheKey = `${key}:${format}`;
    const body = this.lists.get(cacheKey);
    if (body !== undefined) {
      this.countL1();
      return { body, key };
    }
    const built = await this.lists.fetch(cacheKey, () =>
      this.buildList(catalog, principal, format, context, cacheKey),
    );
    return { body: built, key };
  }

  private async buildList(
    catalog: TenantCatalog,
    principal: Principal,
    format: ToolFormat,
    context: string | undefined,
    cacheKey: string,
  ): Promise<Buffer> {
    const scope = await this.store.l2Scope(catalog.tenant);
    const l2Key =
      scope === undefined
        ? undefined
        : listKey(scope, `${cacheKey}${this.shaper ? `:${this.shaper.tag}` : ''}`);
    let json = l2Key === undefined ? undefined : await this.shared.read(l2Key, openListBody);
    if (json !== undefined) {
      this.metrics.inc('gateway_list_requests_total', { level: 'l2' });
    } else {
      const visible = await this.visibleSet(principal, context);
      json = JSON.stringify({
        tools: this.listedDefinitions(visible.tools).map((d) => formatTool(d, format)),
      });
      this.metrics.inc('gateway_list_requests_total', { level: 'build' });
      if (l2Key !== undefined)
        void this.shared.set(l2Key, seal(json), this.options.cacheTtlSeconds);
    }
    return Buffer.from(json);
  }

  /** The definitions a list of these visible tools holds (every one, unless a shaper trims it). */
  listedDefinitions(tools: readonly ServedTool[]): ToolDefinition[] {
    return this.shaper ? this.shaper.shape(tools) : tools.map((t) => t.definition);
  }

  /** Drops every cached list (L1); L2 keys carry the version, so stale ones are never read. */
  clearLists(): void {
    this.lists.clear();
  }

  /**
   * `resolve` without any I/O, for the call fast lane: the tool when the tenant's catalog is
   * in memory and vouched for and the caller may use the tool; else undefined (ask `resolve`).
   */
  cachedResolve(
    principal: Principal,
    name: string,
  ): { catalog: TenantCatalog; tool: ServedTool } | undefined {
    const catalog = this.store.current(principal.tenantId);
    if (!catalog) return undefined;
    const tool = this.index(catalog).get(name);
    if (!tool) return undefined;
    const roles = catalog.access.effectiveRoles(principal);
    return this.permits(catalog, principal, roles, tool, undefined) ? { catalog, tool } : undefined;
  }

  /** A tool in the caller's own visible set; missing and forbidden are the same error. */
  async resolve(
    principal: Principal,
    name: string,
  ): Promise<{ catalog: TenantCatalog; tool: ServedTool }> {
    const catalog = await this.store.catalog(principal.tenantId);
    const tool = this.index(catalog).get(name);
    const roles = catalog.access.effectiveRoles(principal);
    if (!tool || !this.permits(catalog, principal, roles, tool, undefined))
      throw toolNotFound(name);
    return { catalog, tool };
  }

  /** Every tool of the tenant (admins' view), for explanations and status. */
  async tenantTools(
    tenantId: string,
    options: { verify?: boolean } = {},
  ): Promise<{ catalog: TenantCatalog; tools: ServedTool[] }> {
    const catalog = await this.store.catalog(tenantId, options);
    return { catalog, tools: this.index(catalog).all };
  }
}
