import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { startGateway } from './gateway';
import type { RunningGateway } from './gateway';
import { createTestDatabase } from './test-database';
import type { TestDatabase } from './test-database';

/** Two gateway replicas on one fresh test database, sharing a Redis key prefix of their own. */
export interface ReplicaPair {
  db: TestDatabase;
  a: RunningGateway;
  b: RunningGateway;
  /** stops both replicas, drops the database and removes every Redis key under the prefix */
  close(): Promise<void>;
}

/**
 * What the MCP task specs share: state in Redis that either replica must answer from.
 * `name` goes in the prefix (`test-<name>-<random>`), so a failed run leaves keys one can find.
 */
export async function startReplicaPair(
  name: string,
  env: Record<string, string> = {},
): Promise<ReplicaPair> {
  const prefix = `test-${name}-${randomBytes(4).toString('hex')}`;
  const db = await createTestDatabase();
  const shared = { REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_KEY_PREFIX: prefix, ...env };
  const a = await startGateway(shared, db);
  const b = await startGateway(shared, db);
  return {
    db,
    a,
    b,
    async close() {
      await a.close();
      await b.close();
      await db.drop();
      const redis = new Redis(process.env.TEST_REDIS_URL!);
      try {
        const keys = await redis.keys(`${prefix}:*`);
        if (keys.length > 0) await redis.unlink(...keys);
      } finally {
        redis.disconnect();
      }
    },
  };
}
