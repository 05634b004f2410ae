import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createGateway } from './bootstrap';
import { loadSettings } from './config/gateway.config';
import { prepareDataDir } from './database/open-database';

/**
 * Start-up: settings first (parsed once, by the caller; a bad one names its variable), then
 * DATA_DIR (created when missing, whatever the other settings), then the app. A failure is one line (see
 * `startupFailure`), not a stack trace.
 */
export async function start(settings = loadSettings()): Promise<NestFastifyApplication> {
  await prepareDataDir(settings);
  const app = await createGateway({ settings });
  await app.listen(settings.port, settings.host);
  new Logger('Gateway').log(
    `listening on http://${settings.host}:${settings.port} (API docs at /docs)`,
  );
  return app;
}

export { startupFailure } from './errors/startup';
