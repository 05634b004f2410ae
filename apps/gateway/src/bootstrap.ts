import { Metrics } from '@app/registry';
import { ConsoleLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { AppModule } from './app.module';
import { gatewayConfig } from './config/gateway.config';
import type { GatewayConfig } from './config/gateway.config';
import { registerConsole } from './console/console-static';
import { HotPaths } from './http/hot-paths';
import { McpListHotPath } from './mcp/mcp-list.hot-path';
import { ToolCallHotPath } from './tools/tool-call.hot-path';
import { installMcpRequestRules } from './mcp/mcp-request-rules';
import { ToolListHotPath } from './tools/tool-list.hot-path';

/**
 * Nest's console logger, except that a start-up failure is not printed with its stack by
 * Nest's ExceptionHandler: it reaches the caller, which prints one line naming the cause.
 */
class StartupQuietLogger extends ConsoleLogger {
  constructor() {
    super({ logLevels: ['log', 'warn', 'error'] });
  }

  override error(message: unknown, ...rest: unknown[]): void {
    if (rest[rest.length - 1] === 'ExceptionHandler') return;
    super.error(message, ...rest);
  }
}

/** Builds the app (also used by e2e tests and benches); does not listen. */
export async function createGateway(
  options: { logger?: boolean } = {},
): Promise<NestFastifyApplication> {
  const hotPaths = new HotPaths();
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule,
    new FastifyAdapter({ bodyLimit: 1024 * 1024, serverFactory: hotPaths.serverFactory }),
    {
      logger: options.logger === false ? false : new StartupQuietLogger(),
      abortOnError: false,
    },
  );
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Report tool gateway')
      .setDescription('Report metadata in Postgres, served as per-user LLM tools')
      .addBearerAuth()
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs/json' });
  installMcpRequestRules(app.getHttpAdapter().getInstance());
  await registerConsole(app, app.get<GatewayConfig>(gatewayConfig.KEY).console.directory);
  hotPaths.install(
    app.getHttpAdapter().getInstance(),
    [app.get(ToolListHotPath), app.get(ToolCallHotPath), app.get(McpListHotPath)],
    app.get(Metrics),
  );
  app.enableShutdownHooks();
  return app;
}
