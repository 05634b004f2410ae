import Redis from 'ioredis';
import type { Cleanup } from './cleanup';
import { REDIS_URL } from './settings';

function connect(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: true });
}

/** Deletes every key under `prefix:` (the gateway's REDIS_KEY_PREFIX plus its colon). */
export async function clearPrefix(prefix: string): Promise<number> {
  const redis = connect();
  await redis.connect();
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}

/** Every Redis key of this run, whatever its purpose (the sweep at the end of cleanup). */
export function clearRun(runId: string): Promise<number> {
  return clearPrefix(`gwbench-${runId}-*`);
}

/** A Redis key prefix for this run and purpose, removed at cleanup. */
export function redisPrefix(cleanup: Cleanup, runId: string, purpose: string): string {
  const prefix = `gwbench-${runId}-${purpose}`;
  cleanup.add(`clear Redis prefix ${prefix}`, async () => {
    await clearPrefix(prefix);
  });
  return prefix;
}

export async function redisVersion(): Promise<string> {
  const redis = connect();
  await redis.connect();
  try {
    const info = await redis.info('server');
    return /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
  } finally {
    redis.disconnect();
  }
}
