import net from 'node:net';

/**
 * What the proxy does to the server's answers: pass them, hold each one `ms` back, or replace
 * each one with bytes that are not the server's protocol at all.
 */
export type ProxyMode = { kind: 'pass' } | { kind: 'delay'; ms: number } | { kind: 'garbage' };

/** Not RESP, not the Postgres wire protocol: a type byte neither knows, then binary noise. */
const GARBAGE = Buffer.from('?not the protocol\x00\xff\xfe\r\n', 'latin1');

/**
 * A loopback TCP proxy in front of a real server, to take that server "down" (close every
 * connection, refuse new ones), make it slow or make it answer garbage, and bring it back,
 * without touching the server itself.
 */
export class TcpProxy {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** connections accepted since start, for tests that wait until a client reconnected */
  accepted = 0;
  /** client chunks passed upstream (a request, roughly), for tests that see which server served */
  forwarded = 0;
  mode: ProxyMode = { kind: 'pass' };
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(port = 0): Promise<number> {
    this.server = net.createServer((client) => this.connect(client));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** answers held back right now (delay mode): a request the server has already answered */
  get held(): number {
    return this.timers.size;
  }

  get listening(): boolean {
    return this.server !== undefined;
  }

  /** Drops every open connection; new ones are still accepted (a network blip). */
  cut(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  /** Drops every connection and stops accepting: the server looks down. */
  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
    this.server = undefined;
  }

  private connect(client: net.Socket): void {
    this.accepted += 1;
    const upstream = net.connect(this.targetPort, this.targetHost);
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.on('data', (chunk) => {
      this.forwarded += 1;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => this.answer(client, chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  private answer(client: net.Socket, chunk: Buffer): void {
    const mode = this.mode;
    if (mode.kind === 'pass') client.write(chunk);
    else if (mode.kind === 'garbage') client.write(GARBAGE);
    else {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (!client.destroyed) client.write(chunk);
      }, mode.ms);
      this.timers.add(timer);
    }
  }
}
