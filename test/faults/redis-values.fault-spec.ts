import Redis from 'ioredis';
import { callTool, listedTools } from '../support/containment';
import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { createTestDatabase } from '../support/test-database';
import type { TestDatabase } from '../support/test-database';

const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const groot: TokenClaims = { tenant: 'globex', user: 'groot', roles: ['admin'] };

const metric = async (gw: RunningGateway, name: string) => {
  const text = await (await gw.request('/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : 0;
};

/**
 * Fault: what Redis (L2) returns is not what the gateway wrote there (truncated, foreign,
 * of another shape). One instance fills L2; the values are then damaged in Redis; a second
 * instance with an empty memory must refuse them, delete them, rebuild from Postgres and
 * answer exactly what the first one did.
 */
describe('faults: corrupt or foreign values in Redis (L2)', () => {
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

  /** Fills L2 with one instance, damages every acme value with `damage`, reads with a fresh one. */
  async function afterDamage(damage: (key: string, value: string) => string) {
    const prefix = `faults-l2-${Date.now()}-${Math.random().toString(16).slice(2, 8)}`;
    const env = { REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_KEY_PREFIX: prefix };
    const writer = await startGateway(env, database);
    let expected: string[];
    let other: string[];
    let rows: unknown;
    try {
      expected = await listedTools(writer, root);
      other = await listedTools(writer, groot);
      rows = (await callTool(writer, root, 'query_report_revenue_by_month', { year: 2025 })).body
        .result;
      // the writes to L2 are not awaited by the request: wait until they are there
      await eventually(async () => {
        const keys = await redis.keys(`${prefix}:*acme*`);
        expect(keys.some((k) => k.includes(':catalog:'))).toBe(true);
        expect(keys.some((k) => k.includes(':list:'))).toBe(true);
      });
    } finally {
      await writer.close();
    }
    const keys = await redis.keys(`${prefix}:*acme*`);
    for (const key of keys) await redis.set(key, damage(key, (await redis.get(key))!));
    const reader = await startGateway(env, database);
    return { reader, keys, expected, other, prefix, rows };
  }

  it.each([
    ['truncated', (_k: string, v: string) => v.slice(0, Math.floor(v.length / 2))],
    ['not JSON at all', () => 'hello from another program'],
    ['JSON of another shape', () => JSON.stringify({ tools: 'nope', tenant: 42 })],
    [
      'an unsealed value of the old format',
      (k: string) => (k.includes(':list:') ? JSON.stringify({ tools: [] }) : '{"tenant":{}}'),
    ],
    ['a body edited after it was sealed (one byte more)', (_k: string, v: string) => `${v} `],
  ])(
    '%s: the value is refused, deleted and rebuilt from Postgres; the tenant and its neighbours see no difference',
    async (_name, damage) => {
      const { reader, keys, expected, other, rows } = await afterDamage(damage);
      try {
        expect(await listedTools(reader, root)).toEqual(expected);
        expect(await listedTools(reader, groot)).toEqual(other);
        const call = await callTool(reader, root, 'query_report_revenue_by_month', { year: 2025 });
        expect(call.body).toMatchObject({ is_error: false, result: rows });
        expect(await metric(reader, 'gateway_l2_rejected_total')).toBeGreaterThanOrEqual(1);
        // each damaged value was replaced by a sound one (deleted, then written again)
        await eventually(async () => {
          for (const key of keys) {
            const value = await redis.get(key);
            expect(value).not.toBeNull();
            expect(value).toMatch(/^g1\./);
            expect(value).not.toEqual(damage(key, value!));
          }
        });
      } finally {
        await reader.close();
      }
    },
  );

  it("a sound value of another tenant copied under this tenant's key is refused: the caller never reads the other tenant's data", async () => {
    let acmeCatalog = '';
    const { reader, expected, rows } = await afterDamage((key, value) => {
      if (key.includes(':catalog:')) acmeCatalog = key;
      return value;
    });
    try {
      const prefix = acmeCatalog.split(':')[0];
      const [globexCatalog] = await redis.keys(`${prefix}:catalog:globex*`);
      expect(globexCatalog?.startsWith(`${prefix}:catalog:globex`)).toBe(true);
      await redis.set(acmeCatalog, (await redis.get(globexCatalog))!);
      expect(await listedTools(reader, root)).toEqual(expected);
      const call = await callTool(reader, root, 'query_report_revenue_by_month', { year: 2025 });
      expect(call.body).toMatchObject({ is_error: false, result: rows });
    } finally {
      await reader.close();
    }
  });
});
