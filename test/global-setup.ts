import { findTestServers } from './support/servers';
import { ensureTemplate } from './support/template-database';

/** Runs once per `jest` run, before the integration and e2e files. */
export default async function globalSetup(): Promise<void> {
  const servers = await findTestServers();
  process.env.TEST_DATABASE_URL = servers.postgresUrl;
  process.env.TEST_REDIS_URL = servers.redisUrl;
  process.env.GW_TEST_TEMPLATE = await ensureTemplate(servers.postgresUrl);
  (globalThis as { __testServers?: typeof servers }).__testServers = servers;
}
