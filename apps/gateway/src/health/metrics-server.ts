import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { Metrics } from '@app/registry';
import { metricsAllowed } from './health.controller';

/** /metrics on its own port (METRICS_PORT), e.g. reachable only from the monitoring network. */
export async function startMetricsServer(
  metrics: Metrics,
  host: string,
  port: number,
  token: string | undefined,
): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.url !== '/metrics' || request.method !== 'GET') {
      response.writeHead(404).end();
      return;
    }
    if (!metricsAllowed(token, request.headers.authorization)) {
      response.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
      return;
    }
    metrics.render().then(
      (text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
