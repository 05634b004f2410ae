import 'reflect-metadata';
import type { Server } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Metrics } from '@app/registry';
import { loadSettings } from './config/gateway.config';
import type { GatewaySettings } from './config/gateway.config';
import { startMetricsServer } from './health/metrics-server';
import { PINO_LOGGER, RequestPipeline } from './pipeline/request-pipeline';
import { startTracing } from './pipeline/record/tracing';
import type { Logger as Pino } from 'pino';
import { startupFailure } from './errors';
import { start } from './start';

async function main(): Promise<void> {
  const settings = loadSettings();
  const tracing = startTracing(settings);
  const app = await start(settings);
  const metricsServer =
    settings.metrics.port === undefined || !settings.metrics.enabled
      ? undefined
      : await startMetricsServer(
          app.get(Metrics),
          settings.host,
          settings.metrics.port,
          settings.metrics.token,
        );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    void shutdown(app, settings, signal, metricsServer).then(
      async (drained) => {
        await tracing?.shutdown().catch(() => undefined);
        process.exit(drained ? 0 : 1);
      },
      (err: unknown) => {
        process.stderr.write(
          `shutdown failed: ${err instanceof Error ? err.message : String(err)}\n`,
        );
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

/**
 * Graceful shutdown: /readyz says not ready and new requests get a 503 at once; the
 * listener stops accepting; calls in flight finish (up to SHUTDOWN_GRACE_MS); then Nest
 * closes MCP sessions, the LISTEN connection, the pools and Redis. Resolves true when
 * nothing in flight was cut off.
 */
async function shutdown(
  app: NestFastifyApplication,
  settings: GatewaySettings,
  signal: string,
  metricsServer: Server | undefined,
): Promise<boolean> {
  const log = app.get<Pino>(PINO_LOGGER);
  const pipeline = app.get(RequestPipeline);
  log.info({ signal, grace_ms: settings.shutdownGraceMs }, 'shutdown: draining');
  const server = app.getHttpServer();
  const drained = pipeline.drain(settings.shutdownGraceMs);
  server.close();
  server.closeIdleConnections();
  const finished = await drained;
  log.info(
    { finished },
    finished
      ? 'shutdown: in-flight requests finished'
      : 'shutdown: grace period over, closing anyway',
  );
  // a hard stop if a resource refuses to close
  setTimeout(() => process.exit(1), 10_000).unref();
  await app.close();
  metricsServer?.close();
  log.info('shutdown: closed');
  await new Promise<void>((resolve) => log.flush(() => resolve()));
  return finished;
}

main().catch((err: unknown) => {
  process.stderr.write(`gateway failed to start: ${startupFailure(err)}\n`);
  process.exit(1);
});
