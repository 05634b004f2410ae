import { CatalogStore, Metrics } from '@app/registry';
import type { Principal } from '@app/registry';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { gatewayConfig } from '../../config/gateway.config';
import type { GatewayConfig } from '../../config/gateway.config';
import { LimitError } from '../../pipeline/limits';
import { ownerOf } from '../shared/mcp-owner';
import { McpServerFactory } from '../shared/mcp-server.factory';
import type { RpcId } from './mcp-era';
import { subscriptionEndFrame, subscriptionFrame } from '../shared/mcp-wire';
import { McpTasks } from '../tasks/mcp-tasks.service';

/** A tenant's many changes within this window reach a stream as one notification. */
const COALESCE_MS = 50;
/** an SSE comment on quiet streams, so proxies and clients do not close them as idle */
const KEEPALIVE_MS = 15_000;

/** What a client asked for in `subscriptions/listen`, reduced to what a tools-only server sends. */
export interface ListenFilter {
  toolsListChanged: boolean;
  /** Tasks extension: status notifications of these tasks (the caller's own only) */
  taskIds?: string[];
}

interface Listener {
  readonly id: RpcId;
  /** tenant + user (ownerOf) */
  readonly owner: string;
  readonly principal: Principal;
  readonly context: string | undefined;
  readonly filter: ListenFilter;
  readonly raw: ServerResponse;
  /** the tasks whose status changes this stream announces (the caller's own) */
  readonly taskIds: ReadonlySet<string>;
  /** the fingerprint of the list the stream last announced (or the one at open) */
  fingerprint?: string;
  pending?: NodeJS.Timeout;
  close(graceful: boolean): void;
}

/**
 * `subscriptions/listen` streams (revision 2026-07-28) held by this replica. Any replica can
 * hold one: every replica hears every catalog change (LISTEN/NOTIFY, the feed 2025 sessions
 * use), and the replica holding a stream checks that stream's own tool list (the caller's
 * permissions and context) and sends `notifications/tools/list_changed` only when it changed
 * and only when the client asked for it. The acknowledgement goes first; every frame carries
 * the subscription id (the listen request's JSON-RPC id).
 *
 * Streams are capped on this instance (issue 38): a user's stream past MCP_LISTEN_PER_USER ends
 * the user's oldest one (with its response, so a client that still reads it listens again; a
 * client that leaks streams keeps working), and a tenant's past MCP_LISTEN_PER_TENANT is
 * refused (429), so no tenant holds the connections every tenant shares.
 */
@Injectable()
export class McpListenStreams implements OnModuleDestroy {
  private readonly logger = new Logger('McpListen');
  private readonly listeners = new Set<Listener>();
  /** the open streams of each user (in opening order) and the count of each tenant's */
  private readonly byOwner = new Map<string, Set<Listener>>();
  private readonly byTenant = new Map<string, number>();
  private readonly unsubscribe: () => void;
  private readonly unsubscribeTasks: () => void;

  constructor(
    store: CatalogStore,
    private readonly servers: McpServerFactory,
    private readonly metrics: Metrics,
    private readonly tasks: McpTasks,
    @Inject(gatewayConfig.KEY) private readonly config: GatewayConfig,
  ) {
    metrics.describe(
      'gateway_mcp_listen_capped_total',
      'listen streams ended or refused at a cap, by cap (user: the oldest ended; tenant: refused)',
    );
    this.unsubscribe = store.onChange((tenant) => this.catalogChanged(tenant));
    this.unsubscribeTasks = tasks.onStatus((taskId) => void this.taskChanged(taskId));
  }

  get size(): number {
    return this.listeners.size;
  }

  /**
   * Opens the stream on `raw`: the acknowledgement now, changes as they come. Throws
   * LimitError (nothing written) when the tenant has MCP_LISTEN_PER_TENANT streams open here.
   */
  async open(
    id: RpcId,
    principal: Principal,
    context: string | undefined,
    filter: ListenFilter,
    raw: ServerResponse,
  ): Promise<void> {
    // the baseline first: a change made after this point is announced
    const baseline = filter.toolsListChanged
      ? (await this.servers.list({ principal, context })).fingerprint
      : undefined;
    // only the caller's own tasks are watched (another's is as unknown as a missing one)
    const taskIds = new Set<string>();
    for (const taskId of filter.taskIds ?? [])
      if (await this.tasks.get(principal, taskId)) taskIds.add(taskId);
    if (raw.destroyed) return;
    // from here on nothing awaits: the caps are checked and the stream counted in one step
    const owner = ownerOf(principal);
    this.makeRoom(owner, principal.tenantId);
    raw.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    const acknowledged = {
      ...(filter.toolsListChanged ? { toolsListChanged: true } : {}),
      ...(filter.taskIds ? { taskIds: [...taskIds] } : {}),
    };
    raw.write(
      subscriptionFrame(id, 'notifications/subscriptions/acknowledged', {
        notifications: acknowledged,
      }),
    );
    const keepAlive = setInterval(() => raw.write(':\n\n'), KEEPALIVE_MS);
    keepAlive.unref();
    const listener: Listener = {
      id,
      owner,
      principal,
      context,
      filter,
      raw,
      taskIds,
      fingerprint: baseline,
      close: (graceful) => {
        if (!this.listeners.delete(listener)) return;
        this.forget(listener);
        clearInterval(keepAlive);
        clearTimeout(listener.pending);
        if (graceful && !raw.writableEnded) raw.write(subscriptionEndFrame(id));
        raw.end();
      },
    };
    this.listeners.add(listener);
    const mine = this.byOwner.get(owner) ?? new Set<Listener>();
    mine.add(listener);
    this.byOwner.set(owner, mine);
    this.byTenant.set(principal.tenantId, (this.byTenant.get(principal.tenantId) ?? 0) + 1);
    raw.once('close', () => listener.close(false));
  }

  /** Refuses a tenant at its cap; ends a user's oldest streams so the new one fits. */
  private makeRoom(owner: string, tenantId: string): void {
    const { listenPerUser, listenPerTenant } = this.config.mcp;
    const mine = this.byOwner.get(owner);
    const ending = mine ? mine.size - listenPerUser + 1 : 0;
    // the user's own oldest streams make room before the tenant's count is judged
    if ((this.byTenant.get(tenantId) ?? 0) - Math.max(0, ending) >= listenPerTenant) {
      this.metrics.inc('gateway_mcp_listen_capped_total', { cap: 'tenant' });
      throw new LimitError(
        'listen_streams_per_tenant',
        5,
        `your organisation has ${listenPerTenant} subscriptions/listen streams open on this instance, its limit (MCP_LISTEN_PER_TENANT); close one or retry later`,
      );
    }
    if (!mine || ending <= 0) return;
    for (const oldest of [...mine].slice(0, ending)) {
      this.metrics.inc('gateway_mcp_listen_capped_total', { cap: 'user' });
      oldest.close(true);
    }
  }

  private forget(listener: Listener): void {
    const mine = this.byOwner.get(listener.owner);
    mine?.delete(listener);
    if (mine?.size === 0) this.byOwner.delete(listener.owner);
    const tenant = listener.principal.tenantId;
    const left = (this.byTenant.get(tenant) ?? 1) - 1;
    if (left <= 0) this.byTenant.delete(tenant);
    else this.byTenant.set(tenant, left);
  }

  private catalogChanged(tenant: string): void {
    for (const listener of this.listeners) {
      if (!listener.filter.toolsListChanged) continue;
      if (tenant !== '*' && listener.principal.tenantId !== tenant) continue;
      if (listener.pending) continue;
      listener.pending = setTimeout(() => {
        listener.pending = undefined;
        void this.notifyIfChanged(listener);
      }, COALESCE_MS);
    }
  }

  /** A task's status changed (on any replica): the streams watching it get its full state. */
  private async taskChanged(taskId: string): Promise<void> {
    for (const listener of this.listeners) {
      if (!listener.taskIds.has(taskId)) continue;
      const task = await this.tasks.get(listener.principal, taskId).catch(() => undefined);
      if (!task || !this.listeners.has(listener)) continue;
      listener.raw.write(
        subscriptionFrame(listener.id, 'notifications/tasks', McpTasks.wire(task)),
      );
    }
  }

  private async notifyIfChanged(listener: Listener): Promise<void> {
    try {
      const { principal, context } = listener;
      const { fingerprint } = await this.servers.list({ principal, context });
      if (fingerprint === listener.fingerprint || !this.listeners.has(listener)) return;
      listener.fingerprint = fingerprint;
      listener.raw.write(subscriptionFrame(listener.id, 'notifications/tools/list_changed'));
      this.metrics.inc('gateway_mcp_list_changed_total');
    } catch (err) {
      this.logger.warn(
        `could not check a listen stream for tool changes: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  /** Shutdown ends each subscription with its response, so clients know to listen again. */
  onModuleDestroy(): void {
    this.unsubscribe();
    this.unsubscribeTasks();
    for (const listener of [...this.listeners]) listener.close(true);
  }
}
