import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** What the guard knows of one client connection. */
interface Tracked {
  readonly socket: Socket;
  /** a request on it carried a verified token */
  authenticated: boolean;
  /** no longer counted (closed, or evicted and closing) */
  gone: boolean;
}

const TRACKED = Symbol('gateway.connection');
type Carrier = Socket & { [TRACKED]?: Tracked };

/**
 * The instance's connection slots, kept for clients that complete their requests (issue 38).
 * A connection is "in its head" from when it opens, and again after each response, until its
 * next request head has arrived (Node closes it past HTTP_HEADERS_TIMEOUT_MS). At
 * LIMIT_CONNECTIONS a new connection evicts the oldest connection still in its head, so a
 * client sending a complete request is served while stalled ones wait; only when every
 * connection is serving a request is the new one closed. Connections in their head that never
 * carried an authenticated request hold at most LIMIT_UNAUTHENTICATED_CONNECTIONS slots: past
 * it the oldest of them goes (a request in flight is never cut: one without a token is
 * answered at once, its body unread). Node's own `maxConnections` is not used: it
 * closes the newcomer, whatever the others are doing.
 */
export class ConnectionGuard {
  /** connections in their head, oldest first (a Set keeps insertion order) */
  private readonly heads = new Set<Tracked>();
  private open = 0;
  /** of the heads, those that never carried an authenticated request */
  private unauthenticatedHeads = 0;

  constructor(
    private readonly maxConnections: number,
    private readonly maxUnauthenticated: number,
    /** whether the request just answered carried a verified token */
    private readonly authenticated: (request: IncomingMessage) => boolean,
    private readonly evicted: (reason: 'connections' | 'unauthenticated') => void = () => undefined,
  ) {}

  attach(server: Server): void {
    server.on('connection', (socket: Socket) => this.opened(socket));
  }

  /** A request head arrived on its connection: it is served, not evicted, until it ends. */
  requestStarted(request: IncomingMessage, response: ServerResponse): void {
    const tracked = (request.socket as Carrier | null)?.[TRACKED];
    if (!tracked || tracked.gone) return;
    this.leaveHead(tracked);
    response.once('close', () => {
      if (tracked.gone || tracked.socket.destroyed) return;
      if (!tracked.authenticated && this.authenticated(request)) tracked.authenticated = true;
      this.enterHead(tracked);
    });
  }

  private opened(socket: Socket): void {
    const tracked: Tracked = { socket, authenticated: false, gone: false };
    (socket as Carrier)[TRACKED] = tracked;
    this.open++;
    this.enterHead(tracked);
    socket.once('close', () => this.forget(tracked));
    if (this.unauthenticatedHeads > this.maxUnauthenticated)
      this.evictOldest((t) => !t.authenticated, 'unauthenticated');
    if (this.open > this.maxConnections) this.evictOldest(() => true, 'connections');
  }

  private enterHead(tracked: Tracked): void {
    if (this.heads.has(tracked)) return;
    this.heads.add(tracked);
    if (!tracked.authenticated) this.unauthenticatedHeads++;
  }

  private leaveHead(tracked: Tracked): void {
    if (!this.heads.delete(tracked)) return;
    if (!tracked.authenticated) this.unauthenticatedHeads--;
  }

  /** Closes the oldest connection in its head that `which` picks (the newcomer at worst). */
  private evictOldest(
    which: (tracked: Tracked) => boolean,
    reason: 'connections' | 'unauthenticated',
  ): void {
    for (const tracked of this.heads) {
      if (!which(tracked)) continue;
      this.forget(tracked);
      tracked.socket.destroy();
      this.evicted(reason);
      return;
    }
  }

  /** Stops counting a connection, once (at its eviction, or when it closes). */
  private forget(tracked: Tracked): void {
    if (tracked.gone) return;
    tracked.gone = true;
    this.open--;
    this.leaveHead(tracked);
  }
}
