import Redis from 'ioredis';
import { sql } from 'kysely';
import { eventually } from '../support/eventually';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { MODERN_META, modernPost } from '../support/mcp-modern';
import type { ModernAnswer } from '../support/mcp-modern';
import { startReplicaPair } from '../support/replica-pair';
import type { ReplicaPair } from '../support/replica-pair';
import type { TestDatabase } from '../support/test-database';

/**
 * Issue 38, finding 3: tasks and their kept results are capped per user and per tenant
 * (MCP_TASKS_PER_*, MCP_TASK_BYTES_PER_*), in Redis and in the heap alike; past a cap a call
 * is answered synchronously. And a task is readable only while its owner may still call the
 * report it ran.
 */
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const bob: TokenClaims = { tenant: 'acme', user: 'bob', roles: ['analyst'] };
const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = {
  ...MODERN_META,
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
};
const WIDE = 'query_report_wide_rows';

/** A report whose page of 100 rows is about 240 KB (the issue's ~310 KB task results). */
async function addWideReport(db: TestDatabase): Promise<void> {
  await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
            VALUES ('acme', 'wide_rows', 'Wide rows', 'every order with a wide padding column',
                    ${"SELECT id, repeat('x', 2400) AS pad FROM orders ORDER BY id"}, 'sales')`.execute(
    db.handle.db,
  );
}

const callWide = (gw: RunningGateway, token: string) =>
  modernPost(`${gw.baseUrl}/mcp`, token, 'tools/call', {
    _meta: WITH_TASKS,
    name: WIDE,
    arguments: { page_size: 100 },
  });
const taskGet = (gw: RunningGateway, token: string, taskId: string) =>
  modernPost(`${gw.baseUrl}/mcp`, token, 'tasks/get', { _meta: WITH_TASKS, taskId });
const kind = (res: ModernAnswer) => res.body.result?.resultType;

describe('task caps with Redis (e2e)', () => {
  let pair: ReplicaPair;
  let redis: Redis;
  let prefix: string;

  beforeAll(async () => {
    // every report call of a tasks client becomes a task at once (the attack's shape)
    pair = await startReplicaPair('task-caps', { MCP_TASK_AFTER_MS: '0' });
    await addWideReport(pair.db);
    redis = new Redis(process.env.TEST_REDIS_URL!);
    prefix = process.env.REDIS_KEY_PREFIX!;
  });
  afterAll(async () => {
    redis.disconnect();
    await pair.close();
  });

  /** The bytes Redis holds under this pair's prefix (MEMORY USAGE of each key). */
  async function redisBytes(): Promise<number> {
    let total = 0;
    for (const key of await redis.keys(`${prefix}:*`))
      total += Number((await redis.memory('USAGE', key)) ?? 0);
    return total;
  }

  it('300 task calls by one user keep at most 32 MB in Redis; past the cap calls are answered synchronously; another user still gets a task', async () => {
    const token = await mintToken(alice);
    const before = await redisBytes();
    const kinds: Array<unknown> = [];
    // ten at a time: the attack's rate without meeting the tenant's concurrency limit
    for (let round = 0; round < 30; round++) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => callWide(pair.a, token)));
      kinds.push(...answers.map(kind));
    }
    // every task settled (its result kept until its TTL): Redis grew by at most 32 MB
    await eventually(async () => {
      const grown = (await redisBytes()) - before;
      expect(grown).toBeLessThanOrEqual(32 * 1024 * 1024);
      expect(grown).toBeGreaterThan(1024 * 1024);
    });
    expect(kinds.filter((k) => k === undefined)).toEqual([]);
    // the first calls became tasks, the rest were answered with their rows
    expect(kinds.filter((k) => k === 'task').length).toBeGreaterThan(0);
    expect(kinds.filter((k) => k === 'complete').length).toBeGreaterThan(200);
    const other = await callWide(pair.b, await mintToken(bob));
    expect(kind(other)).toBe('task');
  }, 60_000);
});

describe('task caps in the heap, and who may read a task (e2e)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway({
      MCP_TASK_AFTER_MS: '0',
      MCP_TASK_BYTES_PER_USER: String(1024 * 1024),
      MCP_TASKS_PER_USER: '3',
    });
    await addWideReport(gw.database);
  });
  afterAll(() => gw.close());

  it('without Redis: past MCP_TASK_BYTES_PER_USER of kept results a call is answered with its rows, not a task', async () => {
    const token = await mintToken({ ...alice, user: 'heap-user' });
    const kinds: unknown[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await callWide(gw, token);
      kinds.push(kind(res));
      if (kind(res) === 'task') {
        const taskId = res.body.result!.taskId as string;
        await eventually(async () => {
          const got = await taskGet(gw, token, taskId);
          expect(got.body.result!.status).not.toBe('working');
        });
      }
    }
    // about four results of ~250 KB fit in 1 MiB; every later call comes back synchronously
    expect(kinds.slice(0, 3)).toEqual(['task', 'task', 'task']);
    expect(kinds.slice(-4)).toEqual(['complete', 'complete', 'complete', 'complete']);
  });

  it('a task is readable only while its owner may still call its report', async () => {
    const token = await mintToken({ ...alice, user: 'role-loser' });
    const created = await modernPost(`${gw.baseUrl}/mcp`, token, 'tools/call', {
      _meta: WITH_TASKS,
      name: 'query_report_sales_by_region',
      arguments: {},
    });
    const taskId = created.body.result!.taskId as string;
    await eventually(async () => {
      const got = await taskGet(gw, token, taskId);
      expect(got.body.result!.status).toBe('completed');
    });
    // the same user, whose new token no longer carries the role that allowed the report
    const withoutRole = await mintToken({ ...alice, user: 'role-loser', roles: [] });
    const refused = await taskGet(gw, withoutRole, taskId);
    expect(refused.body.error).toMatchObject({ code: -32602 });
    expect(refused.body.result).toBeUndefined();
  });
});
