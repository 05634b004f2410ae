import { randomUUID } from 'node:crypto';
import { CatalogStore, Metrics, REDIS } from '@app/registry';
import type { Principal } from '@app/registry';
import { MetaToolService } from '@app/meta-tool';
import type { DecisionEvent } from '@app/meta-tool';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import type Redis from 'ioredis';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { gatewayConfig } from '../config/gateway.config';
import type { GatewayConfig } from '../config/gateway.config';
import { McpServerFactory } from './mcp-server.factory';
import type { SessionIdentity } from './mcp-server.factory';
import { MemoryEventStore, RedisSessionStore } from './mcp-session-store';

export interface McpSession {
  id: string;
  owner: string;
  identity: SessionIdentity;
  transport: StreamableHTTPServerTransport;
  server: Server;
  protocolVersion: string;
  /** fingerprint of the tool list this session last saw */
  fingerprint?: string;
  lastSeen: number;
  /** when this replica last told Redis the session is in use */
  lastTouched: number;
  /** notification (GET) streams open on this replica */
  streams: number;
  pendingCheck?: NodeJS.Timeout;
}

export class SessionOwnerError extends Error {}

/** A tenant's many changes within this window reach a session as one notification. */
const COALESCE_MS = 50;
/** a session in use tells Redis at most this often */
const TOUCH_EVERY_MS = 1000;

export function ownerOf(principal: Principal): string {
  return `${principal.tenantId}\u0000${principal.userId}`;
}

export function negotiatedVersion(requested: unknown): string {
  return typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;
}

/**
 * MCP sessions: bound to the user who opened them, capped per user (at the cap the user's
 * least recently used session is closed, and logged), closed when idle (sooner when no
 * notification stream is open), on DELETE or when the transport closes.
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
 * failure) is checked at once, so a change made while the client was away is announced.
 */
@Injectable()
export class McpSessions implements OnModuleDestroy {
  private readonly logger = new Logger('McpSessions');
  private readonly sessions = new Map<string, McpSession>();
  private readonly adopting = new Map<string, Promise<McpSession | undefined>>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  private readonly unsubscribeDecisions: () => void;
  readonly shared: RedisSessionStore | undefined;

  constructor(
    private readonly servers: McpServerFactory,
    store: CatalogStore,
    private readonly metrics: Metrics,
    @Inject(gatewayConfig.KEY) private readonly config: GatewayConfig,
    @Inject(REDIS) redis: Redis | null,
    @Optional() @Inject(MetaToolService) metaTool: MetaToolService | null = null,
  ) {
    this.shared = redis ? new RedisSessionStore(redis, config.mcp.sessionIdleMs) : undefined;
    this.unsubscribe = store.onChange((tenant) => this.catalogChanged(tenant));
    this.unsubscribeDecisions =
      metaTool?.onDecision((e) => this.proposalDecided(e)) ?? (() => undefined);
    const shortest = Math.min(config.mcp.sessionIdleMs, config.mcp.streamlessIdleMs);
    const every = Math.max(250, Math.min(shortest / 4, 30_000));
    this.sweeper = setInterval(() => this.closeIdle(), every);
    this.sweeper.unref();
    metrics.describe('gateway_mcp_sessions', 'open MCP sessions on this instance');
    metrics.describe('gateway_mcp_list_changed_total', 'tools/list_changed notifications sent');
    metrics.describe(
      'gateway_mcp_sessions_evicted_total',
      "least recently used sessions closed at a user's session cap",
    );
    metrics.describe(
      'gateway_mcp_sessions_adopted_total',
      'sessions continued on this replica from the state in Redis',
    );
  }

  /** A session held by this replica (no I/O; see `find` for sessions of other replicas). */
  get(id: string): McpSession | undefined {
    const session = this.sessions.get(id);
    if (session) this.used(session);
    return session;
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
    session.streams += 1;
    // check once the stream is registered (the SDK answers its headers then)
    const started = Date.now();
    const check = (): void => {
      if (!this.sessions.has(session.id) || session.streams === 0) return;
      if (!headersSent() && Date.now() - started < 2000) {
        setTimeout(check, 10).unref();
        return;
      }
      this.scheduleCheck(session);
    };
    setTimeout(check, 10).unref();
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      session.streams -= 1;
    };
  }

  /** Ends a session everywhere (DELETE, eviction). */
  async end(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (session) await this.shared?.remove(id, session.owner).catch(noop);
    await this.close(id);
  }

  /** Closes this replica's handle of a session (its state in Redis is left alone). */
  async close(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.forget(id);
    await session.transport.close().catch(() => undefined);
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

  private register(session: McpSession): void {
    this.sessions.set(session.id, session);
    this.metrics.set('gateway_mcp_sessions', this.sessions.size);
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
    // The SDK has no public way to resume a session id: replay the client's initialize
    // (same id, same protocol version) into the transport; its answer goes nowhere.
    const web = (session.transport as unknown as { _webStandardTransport?: unknown })
      ._webStandardTransport as WebStandardStreamableHTTPServerTransport | undefined;
    if (!web || typeof web.handleRequest !== 'function') {
      throw new Error('this MCP SDK version cannot resume sessions (no web transport)');
    }
    const initialize = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: state.protocolVersion,
        capabilities: {},
        clientInfo: { name: 'resumed-session', version: '0' },
      },
    };
    const response = await web.handleRequest(
      new Request('http://gateway.invalid/mcp', {
        method: 'POST',
        headers: {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
        },
        body: JSON.stringify(initialize),
      }),
      { parsedBody: initialize },
    );
    await response.body?.cancel().catch(noop);
    if (!this.sessions.has(id)) return undefined;
    this.metrics.inc('gateway_mcp_sessions_adopted_total');
    this.logger.log(`continuing MCP session ${id} on this replica (state from Redis)`);
    return session;
  }

  private used(session: McpSession): void {
    session.lastSeen = Date.now();
    this.touchShared(session, 'request');
  }

  /**
   * Tells Redis the session is in use (a request: it ranks for eviction) or alive (its
   * stream is open here), at most once a second per session.
   */
  private touchShared(session: McpSession, why: 'request' | 'stream'): void {
    const now = Date.now();
    if (!this.shared?.ready || now - session.lastTouched < TOUCH_EVERY_MS) return;
    session.lastTouched = now;
    const touched =
      why === 'request'
        ? this.shared.touch(session.id, session.owner)
        : this.shared.streamAlive(session.id);
    void touched.then((liveness) => {
      // closed (DELETE, eviction) on another replica: drop this replica's handle too
      if (liveness === 'closed') void this.close(session.id);
      // Redis restarted empty: this replica still knows the session, so it saves it again
      if (liveness === 'lost') void this.saveShared(session);
    }, noop);
  }

  private async saveShared(session: McpSession): Promise<void> {
    await this.shared
      ?.save(session.id, {
        owner: session.owner,
        context: session.identity.context,
        protocolVersion: session.protocolVersion,
        fingerprint: session.fingerprint ?? '',
      })
      .catch((err: unknown) =>
        this.logger.warn(`session ${session.id} is local to this replica (Redis: ${message(err)})`),
      );
  }

  /** At the cap, closes the user's least recently used sessions (here and in Redis). */
  private async makeRoom(owner: string): Promise<void> {
    const cap = this.config.mcp.maxSessionsPerUser;
    let mine: Array<{ id: string; lastUsed: number }>;
    if (this.shared?.ready) {
      mine = await this.shared.sessionsOf(owner).catch(() => this.localSessionsOf(owner));
    } else {
      mine = this.localSessionsOf(owner);
    }
    if (mine.length < cap) return;
    mine.sort((a, b) => a.lastUsed - b.lastUsed);
    for (const victim of mine.slice(0, mine.length - cap + 1)) {
      this.logger.log(
        `closed MCP session ${victim.id} of ${owner.replace('\u0000', '/')}: least recently used (idle ${Math.round((Date.now() - victim.lastUsed) / 1000)} s) at the cap of ${cap} sessions per user`,
      );
      this.metrics.inc('gateway_mcp_sessions_evicted_total');
      await this.shared?.remove(victim.id, owner).catch(noop);
      await this.close(victim.id);
    }
  }

  private localSessionsOf(owner: string): Array<{ id: string; lastUsed: number }> {
    return [...this.sessions.values()]
      .filter((s) => s.owner === owner)
      .map((s) => ({ id: s.id, lastUsed: s.lastSeen }));
  }

  private forget(id: string): void {
    const session = this.sessions.get(id);
    if (session?.pendingCheck) clearTimeout(session.pendingCheck);
    this.sessions.delete(id);
    this.metrics.set('gateway_mcp_sessions', this.sessions.size);
  }

  private closeIdle(): void {
    const now = Date.now();
    const cutoff = now - this.config.mcp.sessionIdleMs;
    const streamlessCutoff = now - this.config.mcp.streamlessIdleMs;
    for (const session of [...this.sessions.values()]) {
      // an open notification stream is a live client: other replicas must not expire it
      if (session.streams > 0) this.touchShared(session, 'stream');
      if (session.lastSeen < cutoff) void this.expire(session, cutoff);
      else if (session.streams === 0 && session.lastSeen < streamlessCutoff)
        void this.expire(session, streamlessCutoff);
    }
  }

  /** Idle here: closed here, and everywhere unless another replica used it since. */
  private async expire(session: McpSession, cutoff: number): Promise<void> {
    if (this.shared?.ready) {
      const last = await this.shared.lastActive(session.id, session.owner).catch(() => undefined);
      if (last === undefined || last < cutoff) {
        await this.shared.remove(session.id, session.owner).catch(noop);
      }
    }
    await this.close(session.id);
  }

  private catalogChanged(tenant: string): void {
    for (const session of this.sessions.values()) {
      if (tenant !== '*' && session.identity.principal.tenantId !== tenant) continue;
      // Only the replica holding the notification stream announces a change.
      if (session.streams === 0) continue;
      this.scheduleCheck(session);
    }
  }

  /**
   * The proposer's open sessions hear a decision as notifications/message (the same outcome
   * `meta_tool {proposal_id}` answers) and, on install, tools/list_changed. Every instance
   * hears it (DecisionFeed relays decisions made elsewhere); like a catalog change, it is
   * announced only by the instance holding the session's notification stream when sessions
   * are shared through Redis or the decision was made elsewhere, so a session hears it once.
   */
  private proposalDecided(event: DecisionEvent): void {
    const owner = `${event.tenantId}\u0000${event.proposer}`;
    for (const session of this.sessions.values()) {
      if (session.owner !== owner) continue;
      if ((event.remote || this.shared?.ready) && session.streams === 0) continue;
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

  private scheduleCheck(session: McpSession): void {
    if (session.pendingCheck) return;
    session.pendingCheck = setTimeout(() => {
      session.pendingCheck = undefined;
      void this.notifyIfChanged(session);
    }, COALESCE_MS);
  }

  private async notifyIfChanged(session: McpSession): Promise<void> {
    try {
      const { fingerprint } = await this.servers.list(session.identity);
      if (fingerprint === session.fingerprint && !this.shared?.ready) return;
      if (this.shared?.ready) {
        const changed = await this.shared.setFingerprint(session.id, fingerprint);
        session.fingerprint = fingerprint;
        if (changed === -1) {
          if (await this.shared.wasClosed(session.id)) return void this.close(session.id);
          await this.saveShared(session); // Redis lost it: keep it, with the new fingerprint
        }
        if (changed === 0) return;
      } else {
        session.fingerprint = fingerprint;
      }
      await session.server.sendToolListChanged();
      this.metrics.inc('gateway_mcp_list_changed_total');
    } catch (err) {
      this.logger.warn(`could not check session ${session.id} for tool changes: ${message(err)}`);
    }
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweeper);
    this.unsubscribeDecisions();
    this.unsubscribe();
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
  }
}

function noop(): void {}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
