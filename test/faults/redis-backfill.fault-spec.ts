import { Metrics } from '@app/registry';
import Redis from 'ioredis';
import { contained } from '../support/containment';
import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { createTestDatabase } from '../support/test-database';
import type { TestDatabase } from '../support/test-database';

const fiona: TokenClaims = { tenant: 'acme', user: 'fiona', roles: ['finance'] };

/**
 * An L2 (Redis) hit back-fills L1: a second instance reads a list another instance wrote to
 * Redis once, then answers it from its own memory, even after Redis lost the value. Seen only
 * through the metrics and the answers.
 */
describe('faults: Redis loses a value right after an L2 hit', () => {
  let database: TestDatabase;
  let redis: Redis;

  beforeAll(async () => {
    database = await createTestDatabase();
    redis = new Redis(process.env.TEST_REDIS_URL!);
  });
  afterAll(async () => {
    redis.disconnect();
    await database.drop();
  });

  const list = async (gw: RunningGateway) => {
    const { status, text } = await contained(
      await gw.request('/v1/tools?format=anthropic', { as: fiona }),
    );
    expect(status).toBe(200);
    return text;
  };

  it('the list read from L2 is kept in L1: answered again with no L2 read and no rebuild', async () => {
    const prefix = `faults-backfill-${Date.now()}-${Math.random().toString(16).slice(2, 8)}`;
    const env = { REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_KEY_PREFIX: prefix };
    const writer = await startGateway(env, database);
    let written: string;
    try {
      written = await list(writer);
      await eventually(async () => expect(await redis.keys(`${prefix}:list:*`)).toHaveLength(1));
    } finally {
      await writer.close();
    }

    const reader = await startGateway(env, database);
    try {
      const m = reader.app.get(Metrics);
      const counts = () => ({
        l2: m.value('gateway_list_requests_total', { level: 'l2' }),
        build: m.value('gateway_list_requests_total', { level: 'build' }),
        hits: m.value('gateway_l2_hits_total'),
        misses: m.value('gateway_l2_misses_total'),
      });
      const start = counts();
      expect(await list(reader)).toBe(written);
      const afterHit = counts();
      expect(afterHit.l2).toBe(start.l2 + 1); // the list came from Redis
      expect(afterHit.build).toBe(start.build);
      expect(afterHit.hits).toBeGreaterThan(start.hits);

      // Redis loses the list: the reader still answers it, from memory
      const [key] = await redis.keys(`${prefix}:list:*`);
      await redis.del(key);
      expect(await list(reader)).toBe(written);
      expect(counts()).toEqual(afterHit); // no L2 read (hit or miss) and no rebuild
      expect(await redis.exists(key)).toBe(0);
    } finally {
      await reader.close();
    }
  });
});
