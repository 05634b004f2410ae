import { sql } from 'kysely';
import { eventually } from '../support/eventually';
import { mintToken } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { MODERN_META, modernPost, openListen } from '../support/mcp-modern';
import type { TestDatabase } from '../support/test-database';
import { startReplicaPair } from '../support/replica-pair';
import type { ReplicaPair } from '../support/replica-pair';

/**
 * The Tasks extension for report calls (issue 29, scope 5): a client that declares it gets a
 * task it polls on the other replica (state in Redis), no one else sees the task, tasks/*
 * without the extension is -32021, a cancel reaches the report's running statement, and the
 * caller's listen stream on another replica hears the task's new status.
 */
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const bob: TokenClaims = { tenant: 'acme', user: 'bob', roles: ['analyst'] };
const TASKS = 'io.modelcontextprotocol/tasks';
const SUB = 'io.modelcontextprotocol/subscriptionId';
const WITH_TASKS = {
  ...MODERN_META,
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
};

describe('MCP Tasks extension for report calls (e2e)', () => {
  let db: TestDatabase;
  let a: RunningGateway;
  let b: RunningGateway;
  let aliceToken: string;
  let pair: ReplicaPair;

  beforeAll(async () => {
    // every report call of a tasks client becomes a task; only a cancel ends the slow one
    pair = await startReplicaPair('tasks', {
      MCP_TASK_AFTER_MS: '0',
      REPORT_STATEMENT_TIMEOUT_MS: '60000',
    });
    ({ db, a, b } = pair);
    aliceToken = await mintToken(alice);
    await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
              VALUES ('acme', 'very_slow', 'Very slow', 'a cross join that runs for minutes',
                      'SELECT count(*) AS n FROM orders o1, orders o2, orders o3, orders o4, orders o5', 'sales')`.execute(
      db.handle.db,
    );
  });
  afterAll(() => pair.close());

  const mcp = (gw: RunningGateway) => `${gw.baseUrl}/mcp`;
  const call = (
    gw: RunningGateway,
    token: string,
    name: string,
    meta: Record<string, unknown> = WITH_TASKS,
  ) => modernPost(mcp(gw), token, 'tools/call', { _meta: meta, name, arguments: {} });
  const taskMethod = (gw: RunningGateway, token: string, method: string, taskId: string) =>
    modernPost(mcp(gw), token, method, { _meta: WITH_TASKS, taskId }, { id: 'task-req' });

  it('server/discover declares the extension', async () => {
    const res = await modernPost(mcp(a), aliceToken, 'server/discover');
    expect(res.body.result!.capabilities).toEqual({
      tools: { listChanged: true },
      // the chart View of report tools (MCP Apps, #33)
      resources: {},
      extensions: { [TASKS]: {} },
    });
  });

  it('a report call becomes a task on A, polled to its result on B', async () => {
    const created = await call(a, aliceToken, 'query_report_sales_by_region');
    const task = created.body.result as Record<string, unknown>;
    expect(task).toMatchObject({ resultType: 'task', status: 'working', pollIntervalMs: 1000 });
    expect(typeof task.taskId).toBe('string');
    expect(task.ttlMs).toBeGreaterThan(0);
    expect(task).not.toHaveProperty('result');
    const done = await eventually(async () => {
      const got = await taskMethod(b, aliceToken, 'tasks/get', task.taskId as string);
      expect(got.body.result!.status).toBe('completed');
      return got.body.result!;
    });
    const result = done.result as { structuredContent: { rows: unknown[] }; resultType: string };
    expect(result.resultType).toBe('complete');
    expect(result.structuredContent.rows.length).toBeGreaterThan(0);
  });

  it("no one else's task is visible: another user's poll is the unknown-task error", async () => {
    const created = await call(a, aliceToken, 'query_report_sales_by_region');
    const taskId = (created.body.result as { taskId: string }).taskId;
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      const res = await taskMethod(b, await mintToken(bob), method, taskId);
      expect(res.body).toMatchObject({ id: 'task-req', error: { code: -32602 } });
    }
    const unknown = await taskMethod(b, aliceToken, 'tasks/get', 'no-such-task');
    expect(unknown.body.error!.code).toBe(-32602);
  });

  it('a tasks/get whose Mcp-Name is not its taskId is 400 / -32020', async () => {
    const res = await modernPost(
      mcp(a),
      aliceToken,
      'tasks/get',
      { _meta: WITH_TASKS, taskId: 'one' },
      { id: 'n1', headers: { 'mcp-name': 'another' } },
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ id: 'n1', error: { code: -32020 } });
  });

  it('a listen for task status without the extension declared is 400 / -32021', async () => {
    const res = await openListen(mcp(a), aliceToken, { taskIds: ['x'] }, 'l1');
    expect(res.status).toBe(400);
    res.close();
  });

  it('tasks/* without the extension declared is 400 / -32021 naming it', async () => {
    const res = await modernPost(mcp(a), aliceToken, 'tasks/get', {
      _meta: MODERN_META,
      taskId: 'x',
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
  });

  it('a client without the extension gets the result synchronously, as before', async () => {
    const res = await call(a, aliceToken, 'query_report_sales_by_region', MODERN_META);
    expect(res.body.result!.resultType).toBe('complete');
    expect(res.body.result!.structuredContent).toBeDefined();
  });

  it('tasks/cancel on B cancels the running statement A started, and the task stays cancelled', async () => {
    const created = await call(a, aliceToken, 'query_report_very_slow');
    const taskId = (created.body.result as { taskId: string }).taskId;
    const traceId = created.headers.get('x-trace-id')!;
    const running = () =>
      sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity
        WHERE application_name = ${`gateway trace=${traceId}`} AND state = 'active'`.execute(
        db.handle.db,
      );
    await eventually(async () => expect(Number((await running()).rows[0].n)).toBe(1), {
      timeoutMs: 10_000,
    });
    // the caller watches the task on B; bob's stream is not told about alice's task
    const watching = await openListen(mcp(b), aliceToken, { taskIds: [taskId] }, 'w1', WITH_TASKS);
    const bobs = await openListen(
      mcp(b),
      await mintToken(bob),
      { taskIds: [taskId] },
      'w2',
      WITH_TASKS,
    );
    try {
      expect(await watching.next()).toMatchObject({
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { taskIds: [taskId] } },
      });
      expect(await bobs.next()).toMatchObject({ params: { notifications: { taskIds: [] } } });
      const cancelled = await taskMethod(b, aliceToken, 'tasks/cancel', taskId);
      expect(cancelled.body.result).toMatchObject({ resultType: 'complete' });
      expect(await watching.next()).toMatchObject({
        method: 'notifications/tasks',
        params: { taskId, status: 'cancelled', _meta: { [SUB]: 'w1' } },
      });
    } finally {
      watching.close();
      bobs.close();
    }
    // well before the 60 s statement timeout: the cancel reached pg_cancel_backend
    await eventually(async () => expect(Number((await running()).rows[0].n)).toBe(0), {
      timeoutMs: 5000,
    });
    const got = await taskMethod(a, aliceToken, 'tasks/get', taskId);
    expect(got.body.result).toMatchObject({ status: 'cancelled' });
    expect(got.body.result).not.toHaveProperty('result');
    // cancelling a terminal task is the same empty acknowledgement
    const again = await taskMethod(a, aliceToken, 'tasks/cancel', taskId);
    expect(again.body.result).toMatchObject({ resultType: 'complete' });
  });
});
