import net from 'node:net';

/** What a connected node-postgres client knows of its backend (BackendKeyData) and server. */
interface BackendKey {
  processID?: unknown;
  secretKey?: unknown;
  host?: unknown;
  port?: unknown;
}

/** protocol code of a CancelRequest (1234 << 16 | 5678) */
const CANCEL_REQUEST_CODE = 80877102;

/**
 * Asks the server to cancel whatever the client's backend is running: the protocol's
 * CancelRequest, sent on a short connection of its own (no pool connection, no login), as
 * psql's Ctrl-C does. Resolves when the server has closed that connection (it has then
 * signalled the backend) or when it could not be reached; never rejects.
 */
export function sendCancelRequest(client: unknown, timeoutMs = 5000): Promise<void> {
  const { processID, secretKey, host, port } = client as BackendKey;
  if (typeof processID !== 'number' || typeof secretKey !== 'number' || typeof port !== 'number')
    return Promise.resolve();
  const packet = Buffer.alloc(16);
  packet.writeInt32BE(16, 0);
  packet.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  packet.writeInt32BE(processID, 8);
  packet.writeInt32BE(secretKey, 12);
  const where = typeof host === 'string' && host !== '' ? host : 'localhost';
  return new Promise<void>((resolve) => {
    const socket = where.startsWith('/')
      ? net.connect(`${where}/.s.PGSQL.${port}`)
      : net.connect(port, where);
    socket.setTimeout(timeoutMs, () => socket.destroy());
    socket.once('connect', () => socket.end(packet));
    socket.once('error', () => socket.destroy());
    socket.once('close', () => resolve());
    socket.resume();
  });
}
