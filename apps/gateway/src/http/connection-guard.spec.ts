import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ConnectionGuard } from './connection-guard';

/** A socket as the guard sees it: events, and a destroy that closes it. */
class FakeSocket extends EventEmitter {
  destroyed = false;
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit('close');
  }
}

function setup(max: number, maxUnauthenticated: number) {
  const server = new EventEmitter();
  const authenticated = new Set<IncomingMessage>();
  const evicted: string[] = [];
  const guard = new ConnectionGuard(
    max,
    maxUnauthenticated,
    (request) => authenticated.has(request),
    (reason) => evicted.push(reason),
  );
  guard.attach(server as unknown as Server);
  const connect = () => {
    const socket = new FakeSocket();
    server.emit('connection', socket as unknown as Socket);
    return socket;
  };
  /** a complete request head on `socket`; `end` answers it */
  const request = (socket: FakeSocket, withToken = false) => {
    const req = { socket } as unknown as IncomingMessage;
    if (withToken) authenticated.add(req);
    const res = new EventEmitter();
    guard.requestStarted(req, res as unknown as ServerResponse);
    return { end: () => res.emit('close') };
  };
  return { connect, request, evicted };
}

describe('ConnectionGuard', () => {
  it('at the cap evicts the oldest connection still in its head, not the newcomer', () => {
    const { connect, evicted } = setup(3, 10);
    const [a, b, c] = [connect(), connect(), connect()];
    const d = connect();
    expect([a, b, c, d].map((s) => s.destroyed)).toEqual([true, false, false, false]);
    expect(evicted).toEqual(['connections']);
  });

  it('never evicts a connection serving a request; the newcomer goes when all are busy', () => {
    const { connect, request } = setup(2, 2);
    const [a, b] = [connect(), connect()];
    request(a);
    request(b);
    const c = connect();
    expect([a.destroyed, b.destroyed, c.destroyed]).toEqual([false, false, true]);
  });

  it('a connection back in its head after a response queues behind older heads', () => {
    const { connect, request } = setup(3, 3);
    const a = connect();
    const answered = request(a);
    const [b, c] = [connect(), connect()];
    answered.end(); // a is idle again, the newest head
    connect();
    expect([a.destroyed, b.destroyed, c.destroyed]).toEqual([false, true, false]);
  });

  it('holds never-authenticated heads to their share; an authenticated connection is not counted', () => {
    const { connect, request, evicted } = setup(10, 2);
    const known = connect();
    request(known, true).end();
    const [a, b] = [connect(), connect()];
    const c = connect();
    expect([known.destroyed, a.destroyed, b.destroyed, c.destroyed]).toEqual([
      false,
      true,
      false,
      false,
    ]);
    expect(evicted).toEqual(['unauthenticated']);
  });
});
