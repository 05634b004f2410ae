import type { TestServers } from './support/servers';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __testServers?: TestServers }).__testServers?.stop();
}
