import { connect } from 'node:net';
import type { Socket } from 'node:net';

/**
 * A stalled-connection client, run as its own process (so its reconnect loop does not share
 * the gateway's event loop in the test process): `count` sockets to 127.0.0.1:`port`, each
 * sending one header line every `everyMs` and never ending its head, reopened whenever it is
 * closed. Prints `open <n>` (connected sockets) every 200 ms; stops on SIGTERM.
 */
const [port, count, everyMs] = process.argv.slice(2).map(Number);
const sockets = new Set<Socket>();
let stopped = false;

function open(): void {
  if (stopped) return;
  const socket = connect(port, '127.0.0.1');
  sockets.add(socket);
  socket.on('error', () => undefined);
  socket.on('connect', () => socket.write('GET /v1/tools HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
  const drip = setInterval(() => socket.write(`X-Stall: ${Date.now()}\r\n`), everyMs);
  socket.once('close', () => {
    clearInterval(drip);
    sockets.delete(socket);
    setImmediate(open);
  });
}

for (let i = 0; i < count; i++) open();
setInterval(() => {
  const connected = [...sockets].filter((s) => !s.connecting && !s.destroyed).length;
  process.stdout.write(`open ${connected}\n`);
}, 200);
process.on('SIGTERM', () => {
  stopped = true;
  for (const socket of sockets) socket.destroy();
  process.exit(0);
});
