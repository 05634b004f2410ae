import type { Principal } from '../access/principal';
import type { TenantCatalog } from '../catalog/model/tenant-catalog';
import type { BuiltinTools } from './builtin-tools';
import type { ServedTool } from './served-tool';
import { ToolIndex } from './tool-index';
import { permits } from './toolset';

/**
 * Which tools of a tenant's catalog a caller may use: one ToolIndex per catalog (rebuilt when
 * the built-ins change), the caller's reach through it, and the access rules (`permits`).
 * Memory only, apart from judging the reports a caller can reach.
 */
export class ToolVisibility {
  private readonly indexes = new WeakMap<TenantCatalog, ToolIndex>();

  constructor(private readonly builtins: BuiltinTools) {}

  /** The catalog's index over its reports, generated tools and the current built-ins. */
  index(catalog: TenantCatalog): ToolIndex {
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

  /** The caller's tools in name order; only what its grants reach is judged (in slices). */
  async visible(
    catalog: TenantCatalog,
    principal: Principal,
    roles: string[],
    context: string | undefined,
  ): Promise<ServedTool[]> {
    const index = this.index(catalog);
    const reach = catalog.access.reach(principal, roles);
    await catalog.reports.prepare(
      reach.everything ? undefined : catalog.reports.idsReachable(reach.categories, reach.names),
    );
    const candidates = reach.everything
      ? index.all
      : index.reachable(reach.categories, reach.names);
    return candidates
      .filter((tool) => permits(catalog, principal, roles, tool, context))
      .sort((a, b) => (a.definition.name < b.definition.name ? -1 : 1));
  }

  /** The tool if this caller may use it (any context); missing and forbidden are both undefined. */
  usable(catalog: TenantCatalog, principal: Principal, name: string): ServedTool | undefined {
    const tool = this.index(catalog).get(name);
    if (!tool) return undefined;
    const roles = catalog.access.effectiveRoles(principal);
    return permits(catalog, principal, roles, tool, undefined) ? tool : undefined;
  }
}
