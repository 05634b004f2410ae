import { randomUUID } from 'node:crypto';
import { CatalogStore, Metrics, REDIS } from '@app/registry';
import type { Principal } from '@app/registry';
import { MetaToolService } from '@app/meta-tool';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import type Redis from 'ioredis';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { gatewayConfig } from '../../config/gateway.config';
import type { GatewayConfig } from '../../config/gateway.config';
import { McpServerFactory } from '../shared/mcp-server.factory';
import type { SessionIdentity } from '../shared/mcp-server.factory';
import { ownerOf } from '../shared/mcp-owner';
import { negotiatedVersion, noop, SessionOwnerError } from './mcp-session';
import type { McpSession } from './mcp-session';
import { MemoryEventStore } from './mcp-event-store';
import { SessionNotices } from './mcp-session-notices';
import { replayInitialize } from './mcp-session-resume';
import { McpSessionTable } from './mcp-session-table';

export { negotiatedVersion, SessionOwnerError } from './mcp-session';
export { ownerOf } from '../shared/mcp-owner';
export type { McpSession } from './mcp-session';

/**
 * MCP sessions: bound to the user who opened them, capped per user (at the cap the user's
 * least recently used session is closed, and logged), closed when idle (sooner when no
 * notification stream is open), on DELETE or when the transport closes (McpSessionTable).
 *
 * With Redis, a session's state (owner, context, protocol version, the fingerprint of the
 * list the client last saw) and its notification events live in Redis (RedisSessionStore),
 * so any replica can continue a session another one opened: the first request it sees for
 * an unknown id adopts the session from Redis. Without Redis, sessions are local to the
 * replica that opened them.
 *
 * When a tenant's catalog changes (every replica hears the NOTIFY), each session with a
 * notification stream open on this replica whose own tool list changed gets
 * notifications/tools/list_changed; a compare-and-set of the fingerprint in Redis makes sure
 * a change is announced once. A stream that opens (or re-opens on another replica after a
 * failure) is checked at once, so a change made while the client was away is announced
 * (SessionNotices).
 */
@Injectable()
export class McpSessions extends McpSessionTable implements OnModuleDestroy {
  private readonly adopting = new Map<string, Promise<McpSession | undefined>>();
  private readonly notices: SessionNotices;
  private readonly unsubscribe: () => void;
  private readonly unsubscribeDecisions: () => void;

  constructor(
    private readonly servers: McpServerFactory,
    store: CatalogStore,
    metrics: Metrics,
    @Inject(gatewayConfig.KEY) config: GatewayConfig,
    @Inject(REDIS) redis: Redis | null,
    @Optional() @Inject(MetaToolService) metaTool: MetaToolService | null = null,
  ) {
    super(metrics, config, redis);
    this.notices = new SessionNotices(this, servers, metrics, this.logger);
    this.unsubscribe = store.onChange((tenant) =>
      this.notices.catalogChanged(this.sessions.values(), tenant),
    );
    this.unsubscribeDecisions =
      metaTool?.onDecision((e) => this.notices.proposalDecided(this.sessions.values(), e)) ??
      (() => undefined);
    metrics.describe('gateway_mcp_list_changed_total', 'tools/list_changed notifications sent');
    metrics.describe(
      'gateway_mcp_sessions_adopted_total',
      'sessions continued on this replica from the state in Redis',
    );
  }

  /**
   * The session with this id: held here, or adopted from Redis. undefined when no replica
   * knows it; SessionOwnerError when it belongs to another user.
   */
  async find(id: string, principal: Principal): Promise<McpSession | undefined> {
    const local = this.get(id);
    if (local) return local;
    if (!this.shared?.ready) return undefined;
    let pending = this.adopting.get(id);
    if (!pending) {
      pending = this.adopt(id, principal).finally(() => this.adopting.delete(id));
      this.adopting.set(id, pending);
    }
    const session = await pending;
    if (session && session.owner !== ownerOf(principal)) {
      throw new SessionOwnerError('this session belongs to another user');
    }
    if (session) this.used(session);
    return session;
  }

  /** A transport for an initialize request; the session exists once the SDK assigns its id. */
  async open(
    identity: SessionIdentity,
    requestedVersion: unknown,
  ): Promise<StreamableHTTPServerTransport> {
    const owner = ownerOf(identity.principal);
    await this.makeRoom(owner);
    const protocolVersion = negotiatedVersion(requestedVersion);
    const session = this.build(randomUUID(), owner, identity, protocolVersion);
    session.transport = this.transport(session, async () => {
      this.register(session);
      // what the client will see first; changes are judged against it
      const listed = await this.servers.list(identity).catch(() => undefined);
      session.fingerprint ??= listed?.fingerprint;
      await this.saveShared(session);
    });
    await session.server.connect(session.transport);
    return session.transport;
  }

  /** The client read its tool list: remember what it saw (here and, if changed, in Redis). */
  listed(session: McpSession, fingerprint: string): void {
    if (session.fingerprint === fingerprint) return;
    session.fingerprint = fingerprint;
    if (this.shared?.ready) void this.shared.setFingerprint(session.id, fingerprint).catch(noop);
  }

  /** A notification stream opened on this replica; returns what to call when it closes. */
  streamOpened(session: McpSession, headersSent: () => boolean): () => void {
    return this.notices.streamOpened(session, headersSent);
  }

  private build(
    id: string,
    owner: string,
    identity: SessionIdentity,
    protocolVersion: string,
  ): McpSession {
    const now = Date.now();
    const session = {
      id,
      owner,
      identity,
      protocolVersion,
      lastSeen: now,
      lastTouched: now,
      streams: 0,
    } as McpSession;
    session.server = this.servers.create(identity, (fp) => this.listed(session, fp));
    return session;
  }

  private transport(
    session: McpSession,
    initialized: () => Promise<void>,
  ): StreamableHTTPServerTransport {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => session.id,
      enableJsonResponse: true,
      eventStore: this.shared?.eventStore(session.id) ?? new MemoryEventStore(),
      onsessioninitialized: initialized,
      onsessionclosed: async (id) => {
        await this.shared?.remove(id, session.owner).catch(noop);
      },
    });
    transport.onclose = () => {
      if (this.sessions.get(session.id) === session) this.forget(session.id);
    };
    return transport;
  }

  /** Continues a session from its state in Redis (another replica opened it). */
  private async adopt(id: string, principal: Principal): Promise<McpSession | undefined> {
    const state = await this.shared?.load(id).catch(() => undefined);
    if (!state) return undefined;
    if (state.owner !== ownerOf(principal)) {
      return { owner: state.owner } as McpSession; // refused by the caller, never registered
    }
    const session = this.build(
      id,
      state.owner,
      { principal, context: state.context },
      state.protocolVersion,
    );
    session.fingerprint = state.fingerprint || undefined;
    session.transport = this.transport(session, async () => this.register(session));
    await session.server.connect(session.transport);
    await replayInitialize(session.transport, state.protocolVersion);
    if (!this.sessions.has(id)) return undefined;
    this.metrics.inc('gateway_mcp_sessions_adopted_total');
    this.logger.log(`continuing MCP session ${id} on this replica (state from Redis)`);
    return session;
  }

  async onModuleDestroy(): Promise<void> {
    this.unsubscribeDecisions();
    this.unsubscribe();
    await this.closeAll();
  }
}
