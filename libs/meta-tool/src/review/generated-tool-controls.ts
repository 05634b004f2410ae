import { CatalogStore } from '@app/registry';
import type { AccessPolicy, Principal } from '@app/registry';
import { Inject, Injectable } from '@nestjs/common';
import { MetaToolError, TOOL_REVIEWER_ROLE } from '../contract';
import { META_TOOL_OPTIONS, resolveOptions } from '../options';
import type { MetaToolOptions } from '../options';
import { notFound } from './proposal-outcomes';
import { GeneratedToolRepository } from '../store/generated-tool.repository';
import type { GeneratedToolView } from '../store/generated-tool.repository';
import { ToolWriteQueue } from './serial-queue';
import { ToolFiles } from '../store/tool-files';

const ADMIN_ROLE = 'admin';

/** Operators of generated tools: the tenant's tool_reviewers, and its admins. */
export function isOperator(access: Pick<AccessPolicy, 'isAdmin'>, roles: string[]): boolean {
  return roles.includes(TOOL_REVIEWER_ROLE) || roles.includes(ADMIN_ROLE) || access.isAdmin(roles);
}

/**
 * The operator controls over a tenant's generated tools (docs/meta-tool.md "Operator
 * controls"): list them with their statistics, disable/enable or delete one, and switch
 * meta_tool off or on for the tenant. Every change refreshes this instance's catalog at once;
 * the others hear the catalog-version NOTIFY.
 */
@Injectable()
export class GeneratedToolControls {
  private readonly enabled: boolean;
  private readonly files: ToolFiles;

  constructor(
    private readonly tools: GeneratedToolRepository,
    @Inject(META_TOOL_OPTIONS) options: MetaToolOptions,
    private readonly store: CatalogStore,
    private readonly queue: ToolWriteQueue,
  ) {
    this.enabled = resolveOptions(options).enabled;
    this.files = new ToolFiles(options.directory);
  }

  async listTools(
    operator: Principal,
  ): Promise<{ meta_tool_enabled: boolean; tools: GeneratedToolView[] }> {
    await this.checkOperator(operator);
    return {
      meta_tool_enabled: this.enabled && (await this.tools.tenantEnabled(operator.tenantId)),
      tools: await this.tools.listTools(operator.tenantId),
    };
  }

  async setToolStatus(
    operator: Principal,
    name: string,
    status: 'active' | 'disabled',
  ): Promise<{ name: string; status: 'active' | 'disabled' }> {
    await this.checkOperator(operator);
    const changed = await this.queue.run(() =>
      this.tools.setToolStatus(operator.tenantId, name, status, operator.userId),
    );
    if (!changed) throw notFound(name);
    this.store.invalidate(operator.tenantId);
    return { name, status };
  }

  /** Row and file in one recoverable step: the file comes back if the row's delete fails. */
  async deleteTool(operator: Principal, name: string): Promise<void> {
    await this.checkOperator(operator);
    const deleted = await this.queue.run(async () => {
      let removal: { commit(): Promise<void>; undo(): Promise<void> } | undefined;
      try {
        const found = await this.tools.deleteTool(
          operator.tenantId,
          name,
          operator.userId,
          async () => {
            removal = await this.files.removeRecoverably(operator.tenantId, name);
          },
        );
        await removal?.commit().catch(() => undefined);
        return found;
      } catch (err) {
        await removal?.undo().catch(() => undefined);
        throw err;
      }
    });
    if (!deleted) throw notFound(name);
    this.store.invalidate(operator.tenantId);
  }

  async setTenantEnabled(
    operator: Principal,
    enabled: boolean,
  ): Promise<{ meta_tool_enabled: boolean }> {
    await this.checkOperator(operator);
    await this.tools.setTenantEnabled(operator.tenantId, enabled, operator.userId);
    this.store.invalidate(operator.tenantId);
    return { meta_tool_enabled: enabled };
  }

  private async checkOperator(principal: Principal): Promise<void> {
    const catalog = await this.store.catalog(principal.tenantId, { verify: true });
    if (!isOperator(catalog.access, catalog.access.effectiveRoles(principal)))
      throw new MetaToolError(
        'FORBIDDEN',
        `managing generated tools needs the ${TOOL_REVIEWER_ROLE} or an admin role of your tenant`,
      );
  }
}
