import {
  Client,
  fromJsonSchema,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { sql } from 'kysely';
import { eventually } from '../support/eventually';
import { mintToken } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import type { TestDatabase } from '../support/test-database';
import { startReplicaPair } from '../support/replica-pair';
import type { ReplicaPair } from '../support/replica-pair';

/**
 * The official SDK v2 client (`@modelcontextprotocol/client` 2.4.0) runs a long report as a
 * task (issue 29, "done when"): it declares the Tasks extension, the call on replica A answers
 * with a task, and the client polls `tasks/get` on replica B (the two share Postgres and Redis)
 * until the report's rows arrive. Another user polling the same task id gets "not found".
 *
 * SDK v2 2.4.0 has no Tasks support in its Client: on 2026-07-28 `callTool` refuses a result
 * of `resultType: 'task'` (UNSUPPORTED_RESULT_TYPE, asserted below, so an SDK that learns tasks
 * shows up here). The task-creating call therefore goes through the SDK's own transport as one
 * JSON-RPC message carrying the `_meta` envelope the Client attaches; the polls go through
 * `Client.request` with an explicit result schema, which the SDK allows for the extension's
 * `tasks/get` on a 2026-07-28 connection.
 */
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const bob: TokenClaims = { tenant: 'acme', user: 'bob', roles: ['analyst'] };
const TASKS = 'io.modelcontextprotocol/tasks';
const MODERN = '2026-07-28';
const CAPABILITIES = { extensions: { [TASKS]: {} } };
const SLOW_REPORT = 'query_report_sdk_slow_regions';

interface TaskAnswer {
  taskId: string;
  status: string;
  result?: { structuredContent: { rows: Array<{ region: string; n: number }> } };
  error?: { code: number; message: string };
}

const taskSchema = fromJsonSchema<TaskAnswer>({
  type: 'object',
  required: ['taskId', 'status'],
  properties: { taskId: { type: 'string' }, status: { type: 'string' } },
});

describe('SDK v2 client runs a long report as a task polled on the other replica (e2e)', () => {
  let db: TestDatabase;
  let a: RunningGateway;
  let b: RunningGateway;
  let pair: ReplicaPair;

  beforeAll(async () => {
    // every report call of a tasks client becomes a task, whatever the machine's speed
    pair = await startReplicaPair('sdk-tasks', {
      MCP_TASK_AFTER_MS: '0',
    });
    ({ db, a, b } = pair);
    // 50,000 orders times 40: long enough to be worth a task, short enough to finish
    await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
              VALUES ('acme', 'sdk_slow_regions', 'Slow regions', 'orders per region, the long way',
                      'SELECT o.region, count(*)::int AS n FROM orders o, generate_series(1, 40) g GROUP BY o.region ORDER BY o.region',
                      'sales')`.execute(db.handle.db);
  });
  afterAll(() => pair.close());

  async function transportFor(gw: RunningGateway, who: TokenClaims) {
    return new StreamableHTTPClientTransport(new URL(`${gw.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${await mintToken(who)}` } },
    });
  }

  /** An SDK v2 client on 2026-07-28 that declares the Tasks extension. */
  async function connect(gw: RunningGateway, who: TokenClaims): Promise<Client> {
    const client = new Client(
      { name: 'sdk-v2-tasks-e2e', version: '1' },
      { versionNegotiation: { mode: 'auto' }, capabilities: CAPABILITIES },
    );
    await client.connect(await transportFor(gw, who));
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    return client;
  }

  /** tools/call through the SDK transport: the one answer, a task or a result, as sent. */
  async function callRaw(gw: RunningGateway, who: TokenClaims, name: string) {
    const transport = await transportFor(gw, who);
    const answer = new Promise<JSONRPCMessage>((resolve, reject) => {
      transport.onmessage = resolve;
      transport.onerror = reject;
    });
    await transport.start();
    try {
      await transport.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name,
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientCapabilities': CAPABILITIES,
            'io.modelcontextprotocol/clientInfo': { name: 'sdk-v2-tasks-e2e', version: '1' },
          },
        },
      });
      const message = (await answer) as { result?: Record<string, unknown> };
      return message.result!;
    } finally {
      await transport.close();
    }
  }

  const getTask = (client: Client, taskId: string) =>
    client.request({ method: 'tasks/get', params: { taskId } }, taskSchema);

  it("the SDK's callTool does not take a task (no Tasks support in 2.4.0)", async () => {
    const client = await connect(a, alice);
    try {
      await expect(client.callTool({ name: SLOW_REPORT, arguments: {} })).rejects.toMatchObject({
        code: 'UNSUPPORTED_RESULT_TYPE',
        data: { resultType: 'task', method: 'tools/call' },
      });
    } finally {
      await client.close();
    }
  });

  it('a call on A becomes a task that the client polls on B to the report rows', async () => {
    const created = await callRaw(a, alice, SLOW_REPORT);
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = created.taskId as string;
    const onB = await connect(b, alice);
    try {
      const done = await eventually(
        async () => {
          const task = await getTask(onB, taskId);
          expect(task.status).toBe('completed');
          return task;
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      expect(done.taskId).toBe(taskId);
      const rows = done.result!.structuredContent.rows;
      expect(rows.map((r) => r.region)).toEqual(['east', 'north', 'south', 'west']);
      // every order 40 times: the report ran to its end, not a partial page
      const perRegion = await sql<{ region: string; n: number }>`
        SELECT region, count(*)::int * 40 AS n FROM tenant_acme.orders GROUP BY region ORDER BY region`.execute(
        db.handle.db,
      );
      expect(rows).toEqual(perRegion.rows);
    } finally {
      await onB.close();
    }
  });

  it("another user polling alice's task on B gets not-found, as for an unknown id", async () => {
    const created = await callRaw(a, alice, SLOW_REPORT);
    const taskId = created.taskId as string;
    const bobOnB = await connect(b, bob);
    try {
      await expect(getTask(bobOnB, taskId)).rejects.toMatchObject({ code: -32602 });
      await expect(getTask(bobOnB, 'no-such-task')).rejects.toMatchObject({ code: -32602 });
    } finally {
      await bobOnB.close();
    }
  });
});
