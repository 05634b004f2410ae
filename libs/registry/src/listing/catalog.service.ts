import { formatTool } from '@app/templates';
import type { ToolDefinition, ToolFormat } from '@app/templates';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { BuiltinTools } from './builtin-tools';
import { CatalogStore } from '../catalog/catalog-store';
import { toolNotFound } from '../errors';
import { LIST_SHAPER } from './list-shaper';
import type { ListShaper } from './list-shaper';
import { Metrics } from '../metrics';
import type { Principal } from '../access/principal';
import type { ServedTool } from './served-tool';
import { SharedCache } from '../catalog/cache/shared-cache';
import { bodyKey, ListBodies } from './list-bodies';
import type { ListVariant } from './list-bodies';
import { toolsetKey } from './toolset';
import { ToolVisibility } from './tool-visibility';
import type { TenantCatalog } from '../catalog/model/tenant-catalog';
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
 * Tool lists per caller. The serialised list body is cached per toolset key (ListBodies: L1
 * here, L2 in Redis), so a warm request costs a key computation and a map lookup: no serialisation, no
 * database, no Redis. Concurrent misses of one key build once.
 */
@Injectable()
export class CatalogService {
  private readonly bodies: ListBodies;
  private readonly visibility: ToolVisibility;
  /**
   * Each principal's last toolset key: a key is a function of (catalog, principal, context)
   * alone and a catalog object is one version, so a warm list reuses it instead of deriving
   * roles and the permission set again. A principal object lives as long as its verified
   * token (TokenVerifier), and its entry with it.
   */
  private readonly keys = new WeakMap<
    Principal,
    { catalog: TenantCatalog; context: string | undefined; key: string }
  >();

  constructor(
    readonly store: CatalogStore,
    builtins: BuiltinTools,
    shared: SharedCache,
    metrics: Metrics,
    @Optional() @Inject(REGISTRY_OPTIONS) options: RegistryOptions | null = null,
    @Optional() @Inject(LIST_SHAPER) private readonly shaper: ListShaper | null = null,
  ) {
    this.visibility = new ToolVisibility(builtins);
    this.bodies = new ListBodies(
      shared,
      (tenant) => store.l2Scope(tenant),
      metrics,
      (options ?? DEFAULT_REGISTRY_OPTIONS).cacheTtlSeconds,
      shaper?.tag,
    );
  }

  catalog(tenantId: string): Promise<TenantCatalog> {
    return this.store.catalog(tenantId);
  }

  async visibleSet(principal: Principal, context?: string): Promise<VisibleSet> {
    const catalog = await this.store.covering(principal);
    const { key, roles } = toolsetKey(catalog, principal, context);
    const tools = await this.visibility.visible(catalog, principal, roles, context);
    return { catalog, tools, key };
  }

  /** The caller's toolset key (validating the context): equal keys, equal lists. */
  async toolsetKeyFor(principal: Principal, context?: string): Promise<string> {
    const catalog = await this.store.covering(principal);
    return toolsetKey(catalog, principal, context).key;
  }

  /**
   * The caller's toolset key from memory alone, or undefined when memory cannot tell (the
   * catalog is not held or not vouched for, or the context is unknown): then ask
   * `toolsetKeyFor`, which reads what it must and explains a refusal.
   */
  cachedToolsetKey(principal: Principal, context?: string): string | undefined {
    const catalog = this.store.current(principal.tenantId);
    if (!catalog) return undefined;
    const last = this.keys.get(principal);
    if (last !== undefined && last.catalog === catalog && last.context === context) return last.key;
    if (context !== undefined && !catalog.access.hasContext(context)) return undefined;
    const { key } = toolsetKey(catalog, principal, context);
    this.keys.set(principal, { catalog, context, key });
    return key;
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
    variant?: ListVariant,
  ): { body: Buffer; key: string } | undefined {
    const key = this.cachedToolsetKey(principal, context);
    if (key === undefined) return undefined;
    const body = this.bodies.held(bodyKey(key, format, variant));
    return body === undefined ? undefined : { body, key };
  }

  /**
   * The list response body `{"tools":[...]}`, serialised once per (toolset, format, variant)
   * and then reused: REST lists and MCP tools/list share it (L1, L2, one build per key).
   */
  async listBody(
    principal: Principal,
    format: ToolFormat,
    context?: string,
    variant?: ListVariant,
  ): Promise<{ body: Buffer; key: string }> {
    const hit = this.cachedListBody(principal, format, context, variant);
    if (hit) return hit;
    const catalog = await this.store.covering(principal);
    const { key } = toolsetKey(catalog, principal, context);
    this.bodies.retireOlder(principal.tenantId, catalog.version);
    const body = await this.bodies.fetch(
      bodyKey(key, format, variant),
      catalog.tenant,
      async () => {
        const { tools } = await this.visibleSet(principal, context);
        const listed = variant ? variant.shape(tools) : this.listedDefinitions(tools);
        return JSON.stringify({ tools: listed.map((d) => formatTool(d, format)) });
      },
    );
    return { body, key };
  }

  /** The definitions a list of these visible tools holds (every one, unless a shaper trims it). */
  listedDefinitions(tools: readonly ServedTool[]): ToolDefinition[] {
    return this.shaper ? this.shaper.shape(tools) : tools.map((t) => t.definition);
  }

  /** The list bodies held in L1 (REST and MCP), for their memory figures. */
  get lists(): Pick<ListBodies, 'size' | 'heldBytes'> {
    return this.bodies;
  }

  /** Drops every cached list (L1); L2 keys carry the version, so stale ones are never read. */
  clearLists(): void {
    this.bodies.clear();
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
    const tool = catalog && this.visibility.usable(catalog, principal, name);
    return catalog && tool ? { catalog, tool } : undefined;
  }

  /** A tool in the caller's own visible set; missing and forbidden are the same error. */
  async resolve(
    principal: Principal,
    name: string,
  ): Promise<{ catalog: TenantCatalog; tool: ServedTool }> {
    const catalog = await this.store.covering(principal);
    const tool = this.visibility.usable(catalog, principal, name);
    if (!tool) throw toolNotFound(name);
    return { catalog, tool };
  }

  /** Every tool of the tenant (admins' view), for explanations and status. */
  async tenantTools(
    tenantId: string,
    options: { verify?: boolean } = {},
  ): Promise<{ catalog: TenantCatalog; tools: ServedTool[] }> {
    const catalog = await this.store.catalog(tenantId, options);
    await catalog.reports.prepare();
    return { catalog, tools: this.visibility.index(catalog).all };
  }
}
