import type { TestServers } from './support/servers';
import { dropUnusedTemplates } from './support/template-database';

/**
 * After the run: the template database goes too (unless another run still uses it), so
 * `npm test` leaves nothing of its own on a shared Postgres. Each test file drops its clone.
 */
export default async function globalTeardown(): Promise<void> {
  const state = globalThis as {
    __testServers?: TestServers;
    __releaseTemplate?: () => Promise<void>;
  };
  if (state.__releaseTemplate) {
    await state.__releaseTemplate();
    state.__releaseTemplate = undefined;
    if (state.__testServers && process.env.TEST_KEEP_TEMPLATE !== '1')
      await dropUnusedTemplates(state.__testServers.postgresUrl);
  }
  await state.__testServers?.stop();
}
