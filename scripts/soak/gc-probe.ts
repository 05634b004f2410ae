import WebSocket from 'ws';

/**
 * What a replica holds once garbage is gone: a full GC through the replica's inspector
 * (Chrome DevTools Protocol, `HeapProfiler.collectGarbage`), then `process.memoryUsage()`.
 * Heap used and RSS read between collections include garbage V8 has not needed to collect
 * yet, so they grow with traffic until the next major GC; a leak is what survives this.
 * Replicas get the inspector (`--inspect` on 127.0.0.1) only in the soak.
 */
export interface AfterGc {
  heapMb: number;
  rssMb: number;
  /** what V8 keeps committed for its heap, and memory outside it (Buffers, WebAssembly) */
  heapTotalMb: number;
  externalMb: number;
}

export async function measureAfterGc(inspectPort: number, timeoutMs = 10_000): Promise<AfterGc> {
  const targets = (await (
    await fetch(`http://127.0.0.1:${inspectPort}/json/list`, {
      signal: AbortSignal.timeout(timeoutMs),
    })
  ).json()) as Array<{ webSocketDebuggerUrl?: string }>;
  const url = targets.find((t) => t.webSocketDebuggerUrl)?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target on port ${inspectPort}`);
  const socket = new WebSocket(url);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const send = cdpSender(socket, timeoutMs);
    await send('HeapProfiler.collectGarbage');
    const reply = (await send('Runtime.evaluate', {
      expression: 'JSON.stringify(process.memoryUsage())',
      returnByValue: true,
    })) as { result: { value: string } };
    const usage = JSON.parse(reply.result.value) as Record<
      'heapUsed' | 'rss' | 'heapTotal' | 'external',
      number
    >;
    const mb = (bytes: number) => bytes / 2 ** 20;
    return {
      heapMb: mb(usage.heapUsed),
      rssMb: mb(usage.rss),
      heapTotalMb: mb(usage.heapTotal),
      externalMb: mb(usage.external),
    };
  } finally {
    socket.close();
  }
}

/** One request at a time over the socket, answered by id. */
function cdpSender(
  socket: WebSocket,
  timeoutMs: number,
): (method: string, params?: object) => Promise<unknown> {
  let next = 0;
  return (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      const timer = setTimeout(() => {
        socket.off('message', onMessage);
        reject(new Error(`${method}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      const onMessage = (data: WebSocket.RawData) => {
        const msg = JSON.parse(data.toString()) as {
          id?: number;
          result?: unknown;
          error?: { message: string };
        };
        if (msg.id !== id) return;
        clearTimeout(timer);
        socket.off('message', onMessage);
        if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
        else resolve(msg.result);
      };
      socket.on('message', onMessage);
      socket.send(JSON.stringify({ id, method, params }));
    });
}
