import { Metrics } from '@app/registry';
import { DiscoveryService, NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import type { DestinationStream, Logger } from 'pino';
import { collectDefaultMetrics } from 'prom-client';
import { AppModule } from './app.module';
import { gatewayConfig, loadSettings } from './config/gateway.config';
import type { GatewayConfig, GatewaySettings } from './config/gateway.config';
import { registerConsole } from './console/console-static';
import { BodyGate } from './http/body-gate';
import { discoverHotPaths } from './http/hot-path';
import { HotPaths } from './http/hot-paths';
import { buildOpenApi } from './http/openapi';
import { acceptMergePatch } from './http/merge-patch-body';
import { installEmptyBodyRule } from './http/empty-body';
import { createLogger, PinoNestLogger } from './pipeline/record/logger';
import { PipelineModule } from './pipeline/pipeline.module';
import { discoverPolicies } from './pipeline/request-policy';
import { RequestPipeline } from './pipeline/request-pipeline';
import { installContextManager } from './pipeline/record/tracing';

export interface GatewayOptions {
  /** false: no logging at all (tests), unless `logDestination` is given */
  logger?: boolean;
  /** where the pino lines go instead of stdout (tests capture them) */
  logDestination?: DestinationStream;
  /** the settings parsed at start-up; default: parsed from the environment now */
  settings?: GatewaySettings;
}

/** Builds the app (also used by e2e tests and benches); does not listen. */
export async function createGateway(options: GatewayOptions = {}): Promise<NestFastifyApplication> {
  const settings = options.settings ?? loadSettings();
  installContextManager();
  const silent = options.logger === false && !options.logDestination;
  const logger: Logger = createLogger(
    silent ? { log: { ...settings.log, level: 'silent' } } : settings,
    options.logDestination,
  );
  const hotPaths = new HotPaths(settings.limits);
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(settings, PipelineModule.forRoot(logger)),
    new FastifyAdapter({
      bodyLimit: settings.limits.bodyBytes,
      serverFactory: hotPaths.serverFactory,
    }),
    { logger: new PinoNestLogger(logger), abortOnError: false },
  );
  SwaggerModule.setup('docs', app, buildOpenApi(app), { jsonDocumentUrl: 'docs/json' });
  installEmptyBodyRule(app.getHttpAdapter().getInstance());
  acceptMergePatch(app.getHttpAdapter().getInstance());
  await registerConsole(app, app.get<GatewayConfig>(gatewayConfig.KEY).console.directory);
  const metrics = app.get(Metrics);
  if (settings.metrics.enabled) collectDefaultMetrics({ register: metrics.registry });
  else metrics.disable();
  const pipeline = app.get(RequestPipeline);
  const discovery = app.get(DiscoveryService);
  for (const policy of discoverPolicies(discovery)) pipeline.use(policy);
  hotPaths.install(
    app.getHttpAdapter().getInstance(),
    discoverHotPaths(discovery),
    metrics,
    pipeline,
    new BodyGate(pipeline, app.get<GatewayConfig>(gatewayConfig.KEY)),
  );
  return app;
}
