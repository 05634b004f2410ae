import { randomUUID } from 'node:crypto';
import { CatalogStore, Metrics } from '@app/registry';
import type { Principal } from '@app/registry';
import { MetaToolService } from '@app/meta-tool';
import type { DecisionEvent } from '@app/meta-tool';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { gatewayConfig } from '../config/gateway.config';
import type { GatewayConfig } from '../config/gateway.config';
import { McpServerFactory } from './mcp-server.factory';
import type { SessionIdentity } from './mcp-server.factory';

export interface McpSession {
  id: string;
  owner: string;
  identity: SessionIdentity;
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** fingerprint of the tool list this session last saw */
  fingerprint?: string;
  lastSeen: number;
  pendingCheck?: NodeJS.Timeout;
}

export class TooManySessionsError extends Error {}

/** A tenant's many changes within this window reach a session as one notification. */
const COALESCE_MS = 50;

export function ownerOf(principal: Principal): string {
  return `${principal.tenantId}\u0000${principal.userId}`;
}

/**
 * MCP sessions of this instance: bound to the user who opened them, capped per user, closed
 * when idle, on DELETE or when the transport closes. When a tenant's catalog changes (any
 * instance, any path: every instance hears the NOTIFY), each session of that tenant whose
 * own tool list changed gets notifications/tools/list_changed; the others are not woken.
 */
@Injectable()
export class McpSessions implements OnModuleDestroy {
  private readonly logger = new Logger('McpSessions');
  private readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  private readonly unsubscribeDecisions: () => void;

  constructor(
    private readonly servers: McpServerFactory,
    store: CatalogStore,
    private readonly metrics: Metrics,
    @Inject(gatewayConfig.KEY) private readonly config: GatewayConfig,
    @Optional() @Inject(MetaToolService) metaTool: MetaToolService | null = null,
  ) {
    this.unsubscribe = store.onChange((tenant) => this.catalogChanged(tenant));
    this.unsubscribeDecisions =
      metaTool?.onDecision((e) => this.proposalDecided(e)) ?? (() => undefined);
    const every = Math.max(250, Math.min(config.mcp.sessionIdleMs / 4, 30_000));
    this.sweeper = setInterval(() => this.closeIdle(), every);
    this.sweeper.unref();
    metrics.describe('gateway_mcp_sessions', 'open MCP sessions on this instance');
    metrics.describe('gateway_mcp_list_changed_total', 'tools/list_changed notifications sent');
  }

  get(id: string): McpSession | undefined {
    const session = this.sessions.get(id);
    if (session) session.lastSeen = Date.now();
    return session;
  }

  /** A transport for an initialize request; the session exists once the SDK assigns its id. */
  async open(identity: SessionIdentity): Promise<StreamableHTTPServerTransport> {
    const owner = ownerOf(identity.principal);
    const mine = [...this.sessions.values()].filter((s) => s.owner === owner).length;
    if (mine >= this.config.mcp.maxSessionsPerUser) {
      throw new TooManySessionsError(
        `you already have ${mine} open MCP sessions (the limit is ${this.config.mcp.maxSessionsPerUser}); close one with DELETE /mcp first`,
      );
    }
    const session: Partial<McpSession> = { owner, identity, lastSeen: Date.now() };
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        session.id = id;
        this.sessions.set(id, session as McpSession);
        this.metrics.set('gateway_mcp_sessions', this.sessions.size);
        // what the client will see first; changes are judged against it
        void this.servers.list(identity).then(
          ({ fingerprint }) => (session.fingerprint ??= fingerprint),
          () => undefined,
        );
      },
    });
    transport.onclose = () => {
      if (session.id) this.forget(session.id);
    };
    const server = this.servers.create(
      identity,
      (fingerprint) => (session.fingerprint = fingerprint),
    );
    Object.assign(session, { transport, server });
    await server.connect(transport);
    return transport;
  }

  async close(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.forget(id);
    await session.transport.close().catch(() => undefined);
  }

  private forget(id: string): void {
    const session = this.sessions.get(id);
    if (session?.pendingCheck) clearTimeout(session.pendingCheck);
    this.sessions.delete(id);
    this.metrics.set('gateway_mcp_sessions', this.sessions.size);
  }

  private closeIdle(): void {
    const cutoff = Date.now() - this.config.mcp.sessionIdleMs;
    for (const session of [...this.sessions.values()]) {
      if (session.lastSeen < cutoff) void this.close(session.id);
    }
  }

  private catalogChanged(tenant: string): void {
    for (const session of this.sessions.values()) {
      if (tenant !== '*' && session.identity.principal.tenantId !== tenant) continue;
      if (session.pendingCheck) continue;
      session.pendingCheck = setTimeout(() => {
        session.pendingCheck = undefined;
        void this.notifyIfChanged(session);
      }, COALESCE_MS);
    }
  }

  /**
   * The proposer's open sessions on this instance hear a decision as notifications/message
   * (the same outcome `meta_tool {proposal_id}` answers); an install also changes their list,
   * which the catalog change turns into tools/list_changed.
   */
  private proposalDecided(event: DecisionEvent): void {
    const owner = `${event.tenantId}\u0000${event.proposer}`;
    for (const session of this.sessions.values()) {
      if (session.owner !== owner) continue;
      const { decision } = event;
      session.server
        .sendLoggingMessage({
          level: decision.status === 'installed' ? 'info' : 'warning',
          logger: 'meta_tool',
          data: {
            proposal_id: decision.proposal_id,
            name: decision.name,
            status: decision.status,
            message: decision.message,
          },
        })
        .catch(() => undefined);
      if (decision.status === 'installed') {
        session.fingerprint = undefined;
        session.server.sendToolListChanged().catch(() => undefined);
      }
    }
  }

  private async notifyIfChanged(session: McpSession): Promise<void> {
    try {
      const { fingerprint } = await this.servers.list(session.identity);
      if (fingerprint === session.fingerprint) return;
      session.fingerprint = fingerprint;
      await session.server.sendToolListChanged();
      this.metrics.inc('gateway_mcp_list_changed_total');
    } catch (err) {
      this.logger.warn(
        `could not check session ${session.id} for tool changes: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweeper);
    this.unsubscribeDecisions();
    this.unsubscribe();
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
  }
}
