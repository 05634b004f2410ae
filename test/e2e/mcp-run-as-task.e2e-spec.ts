import { sql } from 'kysely';
import { eventually } from '../support/eventually';
import { mintToken } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { MCP_ACCEPT, MCP_INITIALIZE } from '../support/mcp';
import { MODERN_META, modernPost } from '../support/mcp-modern';
import type { TestDatabase } from '../support/test-database';
import { startReplicaPair } from '../support/replica-pair';
import type { ReplicaPair } from '../support/replica-pair';

/**
 * A report that declares `run_as_task` (issue 29, scope 5): a 2026-07-28 client that declares
 * the Tasks extension gets a task at once, polled to the rows on the other replica, while
 * MCP_TASK_AFTER_MS is ten minutes here (an undeclared report answers synchronously); a
 * modern client without the extension, a 2025 session and REST get the rows synchronously.
 * A declaration that is not a boolean is refused by the admin API (422, naming it) and by
 * Postgres for a row inserted by SQL; the other reports are served as before.
 */
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const bob: TokenClaims = { tenant: 'acme', user: 'bob', roles: ['analyst'] };
const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = {
  ...MODERN_META,
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
};
const DECLARED = 'query_report_regions_as_task';
const UNDECLARED = 'query_report_regions_plain';

interface Rows {
  rows: Array<{ region: string; n: number }>;
}

describe('a report that declares run_as_task (e2e)', () => {
  let db: TestDatabase;
  let a: RunningGateway;
  let b: RunningGateway;
  let aliceToken: string;
  let expectedRows: Rows['rows'];
  let pair: ReplicaPair;

  beforeAll(async () => {
    // far longer than any call here: only the declaration makes a task
    pair = await startReplicaPair('run-as-task', {
      MCP_TASK_AFTER_MS: '600000',
    });
    ({ db, a, b } = pair);
    aliceToken = await mintToken(alice);
    const template =
      'SELECT o.region, count(*)::int AS n FROM orders o GROUP BY o.region ORDER BY o.region';
    await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category, run_as_task)
              VALUES ('acme', 'regions_as_task', 'Regions (task)', 'orders per region', ${template}, 'sales', true),
                     ('acme', 'regions_plain', 'Regions', 'orders per region', ${template}, 'sales', false)`.execute(
      db.handle.db,
    );
    expectedRows = (
      await sql<Rows['rows'][number]>`SELECT region, count(*)::int AS n FROM tenant_acme.orders
        GROUP BY region ORDER BY region`.execute(db.handle.db)
    ).rows;
  });
  afterAll(() => pair.close());

  const mcp = (gw: RunningGateway) => `${gw.baseUrl}/mcp`;
  const call = (gw: RunningGateway, name: string, meta: Record<string, unknown>) =>
    modernPost(mcp(gw), aliceToken, 'tools/call', { _meta: meta, name, arguments: {} });
  const getTask = (gw: RunningGateway, token: string, taskId: string) =>
    modernPost(mcp(gw), token, 'tasks/get', {
      _meta: WITH_TASKS,
      taskId,
    });

  it('a tasks client gets a task at once, polled to the rows on the other replica', async () => {
    const created = await call(a, DECLARED, WITH_TASKS);
    expect(created.status).toBe(200);
    const task = created.body.result as { resultType: string; taskId: string; status: string };
    expect(task).toMatchObject({ resultType: 'task', status: 'working' });
    const done = await eventually(
      async () => {
        const got = await getTask(b, aliceToken, task.taskId);
        expect(got.body.result!.status).toBe('completed');
        return got.body.result!;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    expect((done.result as { structuredContent: Rows }).structuredContent.rows).toEqual(
      expectedRows,
    );
    // the task is alice's alone
    const bobs = await getTask(b, await mintToken(bob), task.taskId);
    expect(bobs.body.error).toMatchObject({ code: -32602 });
  });

  it('the same tasks client calling an undeclared report waits for it, as before', async () => {
    const res = await call(a, UNDECLARED, WITH_TASKS);
    expect(res.body.result).toMatchObject({ resultType: 'complete' });
    expect((res.body.result!.structuredContent as Rows).rows).toEqual(expectedRows);
  });

  it('a modern client without the extension gets the rows synchronously', async () => {
    const res = await call(b, DECLARED, MODERN_META);
    expect(res.body.result).toMatchObject({ resultType: 'complete' });
    expect(res.body.result).not.toHaveProperty('taskId');
    expect((res.body.result!.structuredContent as Rows).rows).toEqual(expectedRows);
  });

  it('a 2025 session and a REST call get the rows synchronously', async () => {
    const headers = {
      authorization: `Bearer ${aliceToken}`,
      'content-type': 'application/json',
      ...MCP_ACCEPT,
    };
    const init = await fetch(mcp(a), {
      method: 'POST',
      headers,
      body: JSON.stringify(MCP_INITIALIZE),
    });
    expect(init.status).toBe(200);
    const session = init.headers.get('mcp-session-id');
    expect(session).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    await init.text();
    const called = await fetch(mcp(a), {
      method: 'POST',
      headers: { ...headers, 'mcp-session-id': session!, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: DECLARED, arguments: {} },
      }),
    });
    const text = await called.text();
    const frame = JSON.parse(text.startsWith('{') ? text : text.split('data: ')[1]) as {
      result: { structuredContent: Rows };
    };
    expect(frame.result.structuredContent.rows).toEqual(expectedRows);

    const rest = await a.request(`/v1/tools/${DECLARED}/call`, {
      method: 'POST',
      as: alice,
      json: { arguments: {} },
    });
    expect(rest.status).toBe(200);
    expect(((await rest.json()) as { result: Rows }).result.rows).toEqual(expectedRows);
  });

  it('the admin API keeps the declaration and refuses one that is not a boolean (422, naming it)', async () => {
    const fetched = (await (
      await a.request('/v1/admin/reports/regions_as_task', { as: root })
    ).json()) as { report: Record<string, unknown> };
    expect(fetched.report.run_as_task).toBe(true);
    const original = JSON.stringify(fetched);
    const res = await a.request('/v1/admin/reports/regions_as_task', {
      method: 'PUT',
      as: root,
      json: { ...fetched.report, run_as_task: 'always' },
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as {
      error: { code: string; details: { problems: Array<{ message: string }> } };
    };
    expect(body.error.code).toBe('INVALID_REPORT');
    expect(body.error.details.problems.map((p) => p.message).join(' ')).toContain(
      'run_as_task must be boolean',
    );
    const after = await (await a.request('/v1/admin/reports/regions_as_task', { as: root })).json();
    expect(JSON.stringify(after)).toBe(original);
  });

  it('a row inserted by SQL with a declaration that is not a boolean is refused by Postgres; the others stay served', async () => {
    await expect(
      sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category, run_as_task)
          VALUES ('acme', 'bad_declaration', 'Bad', 'x', 'SELECT 1 AS one', 'sales', 'sometimes')`.execute(
        db.handle.db,
      ),
    ).rejects.toThrow(/invalid input syntax for type boolean: "sometimes"/);
    // a report inserted after it is served: nothing else was held up
    await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
              VALUES ('acme', 'after_bad_declaration', 'After', 'x', 'SELECT 1 AS one', 'sales')`.execute(
      db.handle.db,
    );
    await eventually(async () => {
      const listed = await modernPost(mcp(b), aliceToken, 'tools/list');
      const names = (listed.body.result!.tools as Array<{ name: string }>).map((t) => t.name);
      expect(names).toContain('query_report_after_bad_declaration');
      expect(names).not.toContain('query_report_bad_declaration');
      expect(names).toEqual(expect.arrayContaining([DECLARED, UNDECLARED]));
    });
    const res = await call(b, DECLARED, WITH_TASKS);
    expect(res.body.result).toMatchObject({ resultType: 'task' });
  });
});
