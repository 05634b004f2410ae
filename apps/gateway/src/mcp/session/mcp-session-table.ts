import type { Metrics } from '@app/registry';
import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import type { GatewayConfig } from '../../config/gateway.config';
import { errorMessage, noop } from './mcp-session';
import type { McpSession, SessionHost } from './mcp-session';
import { RedisSessionStore } from './mcp-session-store';

/** a session in use tells Redis at most this often */
const TOUCH_EVERY_MS = 1000;

/**
 * The MCP sessions this replica holds, and their upkeep: use marks (in Redis too), the
 * per-user cap with least-recently-used eviction, and closing idle sessions (sooner when no
 * notification stream is open). McpSessions adds opening, adopting and notifying.
 */
export abstract class McpSessionTable implements SessionHost {
  protected readonly logger = new Logger('McpSessions');
  protected readonly sessions = new Map<string, McpSession>();
  private readonly sweeper: NodeJS.Timeout;
  /**
   * How often a session is marked in Redis at most. Another replica expires a session whose
   * mark is older than the idle limit, so the mark comes at least four times per limit: a
   * stream held here is never taken for a dead one when this replica's timers run late.
   */
  private readonly touchEveryMs: number;
  readonly shared: RedisSessionStore | undefined;

  constructor(
    protected readonly metrics: Metrics,
    protected readonly config: GatewayConfig,
    redis: Redis | null,
  ) {
    this.shared = redis ? new RedisSessionStore(redis, config.mcp.sessionIdleMs) : undefined;
    const shortest = Math.min(config.mcp.sessionIdleMs, config.mcp.streamlessIdleMs);
    const every = Math.max(250, Math.min(shortest / 4, 30_000));
    this.touchEveryMs = Math.min(TOUCH_EVERY_MS, every);
    this.sweeper = setInterval(() => this.closeIdle(), every);
    this.sweeper.unref();
    metrics.describe('gateway_mcp_sessions', 'open MCP sessions on this instance');
    metrics.describe(
      'gateway_mcp_sessions_evicted_total',
      "least recently used sessions closed at a user's session cap",
    );
  }

  /** A session held by this replica (no I/O; see `find` for sessions of other replicas). */
  get(id: string): McpSession | undefined {
    const session = this.sessions.get(id);
    if (session) this.used(session);
    return session;
  }

  holds(id: string): boolean {
    return this.sessions.has(id);
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

  async saveShared(session: McpSession): Promise<void> {
    await this.shared
      ?.save(session.id, {
        owner: session.owner,
        context: session.identity.context,
        protocolVersion: session.protocolVersion,
        fingerprint: session.fingerprint ?? '',
      })
      .catch((err: unknown) =>
        this.logger.warn(
          `session ${session.id} is local to this replica (Redis: ${errorMessage(err)})`,
        ),
      );
  }

  protected register(session: McpSession): void {
    this.sessions.set(session.id, session);
    this.metrics.set('gateway_mcp_sessions', this.sessions.size);
  }

  protected forget(id: string): void {
    const session = this.sessions.get(id);
    if (session?.pendingCheck) clearTimeout(session.pendingCheck);
    this.sessions.delete(id);
    this.metrics.set('gateway_mcp_sessions', this.sessions.size);
  }

  protected used(session: McpSession): void {
    session.lastSeen = Date.now();
    this.touchShared(session, 'request');
  }

  /** Stops the sweeper and closes every session this replica holds. */
  protected async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
  }

  /**
   * Tells Redis the session is in use (a request: it ranks for eviction) or alive (its
   * stream is open here), at most once a second per session (more often under a short idle limit).
   */
  private touchShared(session: McpSession, why: 'request' | 'stream'): void {
    const now = Date.now();
    if (!this.shared?.ready || now - session.lastTouched < this.touchEveryMs) return;
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

  /** At the cap, closes the user's least recently used sessions (here and in Redis). */
  protected async makeRoom(owner: string): Promise<void> {
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
}
