import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { eventually } from '../support/eventually';
import { mintToken, startGateway } from '../support/gateway';
import { MCP_ACCEPT, MCP_INITIALIZE, MCP_TOOLS_LIST, watchStreams } from '../support/mcp';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { createTestDatabase } from '../support/test-database';
import type { TestDatabase } from '../support/test-database';

const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const run = promisify(execFile);

describe('MCP across instances, idle sessions, and a third-party client (e2e)', () => {
  let db: TestDatabase;
  let a: RunningGateway;
  let b: RunningGateway;

  beforeAll(async () => {
    db = await createTestDatabase();
    a = await startGateway({ MCP_SESSION_IDLE_MS: '1000' }, db);
    b = await startGateway({ MCP_SESSION_IDLE_MS: '60000' }, db);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await db.drop();
  });

  // the session lives on B: A closes sessions idle for a second, which a loaded machine can
  // reach between the list and the notification
  it('notifies a session on instance B when an admin adds a report through instance A', async () => {
    const streams = watchStreams();
    const transport = new StreamableHTTPClientTransport(new URL(`${b.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${await mintToken(alice)}` } },
      fetch: streams.fetch,
    });
    const client = new Client({ name: 'cluster', version: '1' });
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => resolve()),
    );
    await client.connect(transport);
    try {
      await client.listTools();
      // a notification is sent on the stream the SDK opens in the background after connect
      await streams.opened(1);
      const put = await a.request('/v1/admin/reports/via_admin_api', {
        method: 'PUT',
        as: root,
        json: {
          name: 'Via API',
          description: 'added through instance A',
          sql_template: 'SELECT count(*) AS n FROM orders',
          category: 'sales',
        },
      });
      expect(put.status).toBe(201);
      await changed;
      expect((await client.listTools()).tools.map((t) => t.name)).toContain(
        'query_report_via_admin_api',
      );
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });

  it('closes a session that stays idle past MCP_SESSION_IDLE_MS', async () => {
    const init = MCP_INITIALIZE;
    const headers = MCP_ACCEPT;
    const res = await a.request('/mcp', { method: 'POST', as: alice, headers, json: init });
    const id = res.headers.get('mcp-session-id')!;
    const probe = MCP_TOOLS_LIST;
    // the sweeper, not a request, must end it: poll without touching the session
    await eventually(
      async () => {
        const metrics = await (await a.request('/metrics')).text();
        expect(metrics).toMatch(/^gateway_mcp_sessions 0$/m);
      },
      { timeoutMs: 5000, intervalMs: 100 },
    );
    expect(
      (
        await a.request('/mcp', {
          method: 'POST',
          as: alice,
          headers: { ...headers, 'mcp-session-id': id },
          json: probe,
        })
      ).status,
    ).toBe(404);
  });

  it('works with the MCP inspector CLI (tools/list and tools/call)', async () => {
    const cli = path.resolve(
      __dirname,
      '../../node_modules/@modelcontextprotocol/inspector-cli/build/index.js',
    );
    const token = await mintToken(alice);
    const base = [
      cli,
      `${b.baseUrl}/mcp`,
      '--transport',
      'http',
      '--header',
      `Authorization: Bearer ${token}`,
    ];
    const listed = JSON.parse((await run('node', [...base, '--method', 'tools/list'])).stdout) as {
      tools: Array<{ name: string }>;
    };
    expect(listed.tools.map((t) => t.name)).toContain('query_report_sales_by_region');
    const called = JSON.parse(
      (
        await run('node', [
          ...base,
          '--method',
          'tools/call',
          '--tool-name',
          'query_report_sales_by_region',
          '--tool-arg',
          'region=east',
        ])
      ).stdout,
    ) as {
      structuredContent: { rows: Array<{ region: string }> };
    };
    expect(called.structuredContent.rows.map((r) => r.region)).toEqual(['east']);
  }, 30_000);
});
