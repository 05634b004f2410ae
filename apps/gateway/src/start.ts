import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createGateway } from './bootstrap';
import { ConfigError, loadSettings } from './config/gateway.config';
import { prepareDataDir } from './database/open-database';

/**
 * Start-up: settings first (a bad one names its variable), then DATA_DIR (created when
 * missing, whatever the other settings), then the app. A failure is one line (see
 * `startupFailure`), not a stack trace.
 */
export async function start(): Promise<NestFastifyApplication> {
  const settings = loadSettings();
  await prepareDataDir(settings);
  const app = await createGateway();
  await app.listen(settings.port, settings.host);
  new Logger('Gateway').log(
    `listening on http://${settings.host}:${settings.port} (API docs at /docs)`,
  );
  return app;
}

/** One line naming the cause of a failed start-up; never a stack trace. */
export function startupFailure(err: unknown): string {
  let text: string;
  if (err instanceof ConfigError) text = err.message;
  else if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const prefix = typeof code === 'string' && !err.message.includes(code) ? `${code}: ` : '';
    text = `${prefix}${err.message || err.name}`;
  } else text = String(err);
  // the first line names the cause; what follows (a stack, a hint list) stays out
  return text.trim().split('\n')[0].trim();
}
