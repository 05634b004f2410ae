import { findTestServers } from './support/servers';
import { ensureTemplate, holdTemplate, templateName } from './support/template-database';

/** Runs once per `jest` run, before the integration and e2e files. */
export default async function globalSetup(): Promise<void> {
  const servers = await findTestServers();
  process.env.TEST_DATABASE_URL = servers.postgresUrl;
  process.env.TEST_REDIS_URL = servers.redisUrl;
  // held before it is built, so no other run's cleanup drops it between the two
  // (several jest projects run this set-up in one process: one hold is enough)
  const state = globalThis as {
    __testServers?: typeof servers;
    __releaseTemplate?: () => Promise<void>;
  };
  state.__releaseTemplate ??= await holdTemplate(servers.postgresUrl, templateName());
  process.env.GW_TEST_TEMPLATE = await ensureTemplate(servers.postgresUrl);
  state.__testServers = servers;
}
