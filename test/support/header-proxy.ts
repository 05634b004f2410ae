import { createServer, request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP proxy that adds headers (a bearer token) to every request, for clients that cannot
 * send one themselves, such as the MCP conformance runner. Bodies and answers, SSE streams
 * included, are piped through unchanged; a client hanging up closes the upstream request.
 */
export interface HeaderProxy {
  url: string;
  close(): Promise<void>;
}

/** `target` may be a function, for a proxy started before the server it forwards to. */
export async function startHeaderProxy(
  target: string | (() => string),
  headers: Record<string, string>,
  /** sees each request's method, path and headers as they arrived (a test's record of them) */
  onRequest?: (method: string, path: string, headers: IncomingHttpHeaders) => void,
): Promise<HeaderProxy> {
  const server = createServer((req, res) => {
    onRequest?.(req.method ?? '', req.url ?? '', req.headers);
    const upstreamUrl = new URL(typeof target === 'string' ? target : target());
    const upstream = request(
      {
        host: upstreamUrl.hostname,
        port: upstreamUrl.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, ...headers },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy: ${err.message}`);
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
