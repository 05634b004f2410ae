import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createGateway } from './bootstrap';
import { ConfigError, loadSettings } from './config/gateway.config';

async function main(): Promise<void> {
  const settings = loadSettings();
  const app = await createGateway();
  await app.listen(settings.port, settings.host);
  new Logger('Gateway').log(
    `listening on http://${settings.host}:${settings.port} (API docs at /docs)`,
  );
}

main().catch((err: unknown) => {
  // A bad setting stops start-up with one line naming the variable, not a stack trace.
  const message =
    err instanceof ConfigError ||
    (err instanceof Error && /^Config validation|must be/.test(err.message))
      ? err.message
      : err instanceof Error
        ? (err.stack ?? err.message)
        : String(err);
  process.stderr.write(`gateway failed to start: ${message}\n`);
  process.exit(1);
});
