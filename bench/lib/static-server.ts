/**
 * The list baseline: a bare node:http server that answers each request with a fixed
 * response chosen by path prefix (status 200, the given headers, the given bytes). Run as
 * its own process, like the gateway, so the load generator does not share its event loop.
 *   BENCH_ROUTES  JSON array of { prefix, file, headers }
 *   PORT
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';

interface Route {
  prefix: string;
  body: Buffer;
  headers: Record<string, string>;
}

const routes: Route[] = (
  JSON.parse(process.env.BENCH_ROUTES ?? '[]') as Array<{
    prefix: string;
    file: string;
    headers: Record<string, string>;
  }>
).map((r) => {
  const body = readFileSync(r.file);
  return {
    prefix: r.prefix,
    body,
    headers: { ...r.headers, 'content-length': String(body.length) },
  };
});
const port = Number(process.env.PORT);

const server = http.createServer((req, res) => {
  const route = routes.find((r) => req.url?.startsWith(r.prefix)) ?? routes[0];
  // Read the request body first, as the gateway does, then send the fixed bytes.
  req.resume();
  req.on('end', () => {
    res.writeHead(200, route.headers);
    res.end(route.body);
  });
});
server.keepAliveTimeout = 72_000;
server.listen(port, '127.0.0.1', () => process.stdout.write(`listening ${port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
