import net from 'node:net';

/**
 * A MySQL-protocol server that lies (issue #42): it accepts any login, then answers the first
 * query with a LOCAL INFILE request for a file of the client's machine, the way a rogue server
 * steals files from clients that honour it. It records every byte the client sends after that
 * request, so a test can prove the gateway sent no file.
 */
export class RogueMysqlServer {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  /** what clients sent after being asked for the file */
  readonly afterRequest: Buffer[] = [];
  /** how many times a client was asked for the file */
  asked = 0;
  port = 0;

  constructor(private readonly wantedFile: string) {}

  async start(): Promise<number> {
    this.server = net.createServer((socket) => this.serve(socket));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private serve(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    let stage: 'auth' | 'query' | 'asked' = 'auth';
    let buffered = Buffer.alloc(0);
    socket.write(packet(0, handshake()));
    socket.on('data', (chunk) => {
      if (stage === 'asked') {
        this.afterRequest.push(chunk);
        return;
      }
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4) {
        const length = buffered.readUIntLE(0, 3);
        if (buffered.length < 4 + length) return;
        const seq = buffered[3];
        const payload = buffered.subarray(4, 4 + length);
        buffered = buffered.subarray(4 + length);
        if (stage === 'auth') {
          // any login: OK
          socket.write(packet(seq + 1, Buffer.from([0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00])));
          stage = 'query';
        } else if (payload[0] === 0x03) {
          // COM_QUERY: "send me this file"
          this.asked += 1;
          stage = 'asked';
          socket.write(
            packet(seq + 1, Buffer.concat([Buffer.from([0xfb]), Buffer.from(this.wantedFile)])),
          );
          if (buffered.length > 0) this.afterRequest.push(buffered);
          return;
        } else {
          socket.write(packet(seq + 1, Buffer.from([0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00])));
        }
      }
    });
  }
}

function packet(seq: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUIntLE(payload.length, 0, 3);
  header[3] = seq & 0xff;
  return Buffer.concat([header, payload]);
}

/** Protocol 10 handshake offering LOCAL INFILE, with mysql_native_password. */
function handshake(): Buffer {
  const capabilities =
    0x00000001 | // LONG_PASSWORD
    0x00000008 | // CONNECT_WITH_DB
    0x00000080 | // LOCAL_FILES
    0x00000200 | // PROTOCOL_41
    0x00002000 | // TRANSACTIONS
    0x00008000 | // SECURE_CONNECTION
    0x00080000; // PLUGIN_AUTH
  const scramble = Buffer.from('abcdefghijklmnopqrst');
  const parts = [
    Buffer.from([0x0a]),
    Buffer.from('5.7.44-rogue\0'),
    Buffer.from([0x01, 0x00, 0x00, 0x00]),
    scramble.subarray(0, 8),
    Buffer.from([0x00]),
    u16(capabilities & 0xffff),
    Buffer.from([0x21]),
    u16(0x0002),
    u16(capabilities >>> 16),
    Buffer.from([21]),
    Buffer.alloc(10),
    Buffer.concat([scramble.subarray(8), Buffer.from([0x00])]),
    Buffer.from('mysql_native_password\0'),
  ];
  return Buffer.concat(parts);
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}
