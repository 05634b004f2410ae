import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { eventually } from '../support/eventually';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway } from '../support/gateway';

/**
 * Issue 38, finding 2: stalled connections (a request head sent one line at a time, the socket
 * reopened whenever it is closed) do not keep authenticated clients out. At LIMIT_CONNECTIONS
 * the oldest connections still in their head are evicted first, and connections that never
 * carried an authenticated request hold at most LIMIT_UNAUTHENTICATED_CONNECTIONS slots.
 */

/** `count` stalled sockets in a process of their own (test/support/stall-client.ts). */
function stallers(port: number, count: number, everyMs: number) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(__dirname, '../support/stall-client.ts'),
      ...[port, count, everyMs].map(String),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let open = 0;
  child.stdout.on('data', (d: Buffer) => {
    const last = /open (\d+)\n$/.exec(d.toString());
    if (last) open = Number(last[1]);
  });
  return {
    get open() {
      return open;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** One GET on a connection of its own; the status and how long it took, or 0 on a reset. */
function freshGet(port: number, path: string, token?: string) {
  return new Promise<{ status: number; ms: number }>((resolve) => {
    const started = performance.now();
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        agent: false,
        timeout: 5000,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }),
        );
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.end();
  });
}

describe('stalled connections (fault)', () => {
  let gw: RunningGateway;
  let port: number;

  afterEach(async () => {
    await gw.close();
  });

  it('2,100 stalled sockets (one header line every 3 s, reopened when closed): at least 9 of 10 authenticated lists on fresh connections are answered', async () => {
    gw = await startGateway({});
    port = Number(new URL(gw.baseUrl).port);
    const token = await mintToken({ tenant: 'acme', user: 'alice', roles: ['analyst'] });
    const attack = stallers(port, 2100, 3000);
    try {
      // the attack is in place: the instance holds its connection cap's worth of them
      await eventually(async () => expect(attack.open).toBeGreaterThanOrEqual(1000), {
        timeoutMs: 15_000,
      });
      const answers: Array<{ status: number; ms: number }> = [];
      // spread over the head timeout (5 s), so evictions and reconnects happen meanwhile
      for (let i = 0; i < 10; i++) {
        answers.push(await freshGet(port, '/v1/tools?format=openai', token));
        await new Promise((resolve) => setTimeout(resolve, 600));
      }
      // Answered, not reset: before issue #38 the probes failed outright (connection resets).
      // Their time is printed, not asserted: on CI's two cores the whole suite runs beside this
      // gateway, which shares its event loop with the test (alone here: 10 of 10 within 2 s).
      const served = answers.filter((a) => a.status === 200);
      process.stdout.write(
        `stalled-connections: ${served.length}/10 answered, ${answers.filter((a) => a.status === 200 && a.ms <= 2000).length}/10 within 2 s (ms: ${answers.map((a) => Math.round(a.ms)).join(', ')})\n`,
      );
      expect(served.length).toBeGreaterThanOrEqual(9);
      expect((await freshGet(port, '/healthz')).status).toBe(200);
    } finally {
      await attack.stop();
    }
  }, 60_000);

  it('connections that never authenticated hold at most LIMIT_UNAUTHENTICATED_CONNECTIONS slots, the oldest going first', async () => {
    gw = await startGateway({ LIMIT_UNAUTHENTICATED_CONNECTIONS: '5' });
    port = Number(new URL(gw.baseUrl).port);
    const sockets: Socket[] = [];
    const closed = new Set<number>();
    for (let i = 0; i < 12; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.once('close', () => closed.add(i));
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write('GET /healthz HTTP/1.1\r\n');
      sockets.push(socket);
    }
    try {
      await eventually(async () => expect(closed.size).toBe(7));
      // the seven oldest went; the five newest are still open
      expect([...closed].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
      const token = await mintToken({ tenant: 'acme', user: 'alice', roles: ['analyst'] });
      expect((await freshGet(port, '/v1/tools?format=openai', token)).status).toBe(200);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});
