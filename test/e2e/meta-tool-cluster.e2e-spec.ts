import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import Redis from 'ioredis';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { McpSessions } from '../../apps/gateway/src/mcp/session/mcp-sessions.service';
import { eventually } from '../support/eventually';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import {
  author,
  callTool,
  decide,
  install,
  reviewer,
  toolNames,
  toolSource,
} from '../support/meta-tool';
import { createTestDatabase } from '../support/test-database';
import type { TestDatabase } from '../support/test-database';

interface Listener {
  client: Client;
  messages: Array<Record<string, unknown>>;
  listChanged: number;
}

/**
 * Two gateway instances on one database: a proposal decided on one instance reaches the
 * proposer's MCP session held by the other (notifications/message with the outcome and, on
 * install, tools/list_changed), relayed over Postgres NOTIFY.
 */
describe.each([
  ['sessions local to each instance', false],
  ['sessions shared through Redis', true],
])('meta_tool decisions across instances (e2e, two instances, %s)', (_, shared) => {
  let db: TestDatabase;
  let a: RunningGateway;
  let b: RunningGateway;
  const open: Client[] = [];
  const prefix = `test-meta-cluster-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    db = await createTestDatabase();
    const env = {
      REDIS_URL: shared ? process.env.TEST_REDIS_URL! : '',
      REDIS_KEY_PREFIX: prefix,
      META_TOOL_APPROVAL_WAIT_MS: '',
      META_TOOL_ENABLED: '',
      META_TOOL_TIMEOUT_MS: '4000',
    };
    a = await startGateway(env, db);
    b = await startGateway(env, db);
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close().catch(() => undefined)));
    await a.close();
    await b.close();
    await db.drop();
    if (!shared) return;
    const redis = new Redis(process.env.TEST_REDIS_URL!);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.unlink(...keys);
    redis.disconnect();
  });

  /** An MCP client of `who` on `gw`, once its notification stream is open there. */
  async function listen(gw: RunningGateway, who: TokenClaims): Promise<Listener> {
    const client = new Client({ name: who.user, version: '1' });
    open.push(client);
    const listener: Listener = { client, messages: [], listChanged: 0 };
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      listener.messages.push(n.params.data as Record<string, unknown>);
    });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listener.listChanged += 1;
    });
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${await mintToken(who)}` } },
    });
    await client.connect(transport);
    const sessions = gw.app.get(McpSessions);
    await eventually(async () => {
      expect(sessions.get(transport.sessionId!)?.streams).toBeGreaterThan(0);
    });
    return listener;
  }

  /** Proposes through the MCP client (so on its instance); returns the proposal id. */
  async function proposeOver(listener: Listener, name: string, body: string): Promise<string> {
    const called = await listener.client.callTool({
      name: 'meta_tool',
      arguments: { name, code: toolSource(name, body), testArgs: {} },
    });
    expect(called.isError).toBeFalsy();
    const id = (called.structuredContent as { proposal_id?: unknown } | undefined)?.proposal_id;
    expect(typeof id).toBe('string');
    return id as string;
  }

  it('an install decided on instance A reaches the proposer on B: the outcome, then a list with the tool', async () => {
    const proposer = await listen(b, author);
    const bystander = await listen(b, { ...author, user: 'bystander' });
    const id = await proposeOver(proposer, 'across_instances', 'return 41 + 1;');
    expect((await decide(a, id, 'approve')).body).toMatchObject({ status: 'installed' });
    await eventually(async () => {
      expect(proposer.messages).toContainEqual({
        proposal_id: id,
        name: 'across_instances',
        status: 'installed',
        message: expect.stringMatching(/^installed across_instances; its smoke call returned 42/),
      });
      expect(proposer.listChanged).toBeGreaterThan(0);
    });
    const { tools } = await proposer.client.listTools();
    expect(tools.map((t) => t.name)).toContain('across_instances');
    const called = await proposer.client.callTool({ name: 'across_instances', arguments: {} });
    expect(called.isError).toBeFalsy();
    expect(JSON.stringify(called.structuredContent ?? called.content)).toContain('42');
    // only the proposer is told; their colleague's session on the same instance is not
    expect(bystander.messages).toEqual([]);
  });

  it('a runtime-gate failure decided on A reaches the proposer on B with the full reason', async () => {
    const proposer = await listen(b, author);
    const id = await proposeOver(proposer, 'fails_across', "throw new Error('boom on A');");
    expect((await decide(a, id, 'approve')).body).toMatchObject({ status: 'failed' });
    await eventually(async () => {
      expect(proposer.messages).toContainEqual({
        proposal_id: id,
        name: 'fails_across',
        status: 'failed',
        message:
          'the runtime gate refused fails_across: run: boom on A. Nothing was installed; the file set and the registry are unchanged.',
      });
    });
    expect(proposer.listChanged).toBe(0);
  });

  it('a rejection on A reaches the proposer on B with the reviewer reason', async () => {
    const proposer = await listen(b, author);
    const id = await proposeOver(proposer, 'rejected_across', 'return 1;');
    const res = await a.request(`/v1/admin/meta-tool/proposals/${id}/reject`, {
      method: 'POST',
      as: reviewer,
      json: { reason: 'not needed' },
    });
    expect(res.status).toBeLessThan(300);
    await eventually(async () => {
      expect(proposer.messages).toContainEqual(
        expect.objectContaining({
          proposal_id: id,
          status: 'rejected',
          message: expect.stringContaining('not needed'),
        }),
      );
    });
  });

  it('disable, enable and delete on A are hot on B: its lists and calls follow', async () => {
    await install(a, {
      name: 'hot_across',
      code: toolSource('hot_across', 'return 5;'),
      testArgs: {},
    });
    await eventually(async () => expect(await toolNames(b, author)).toContain('hot_across'));
    expect((await callTool(b, author, 'hot_across', {})).body.result).toEqual({ value: 5 });
    const op = (path: string, method: string) =>
      a.request(`/v1/admin/generated-tools/hot_across${path}`, { method, as: reviewer, json: {} });
    expect((await op('/disable', 'POST')).status).toBe(200);
    await eventually(async () => expect(await toolNames(b, author)).not.toContain('hot_across'));
    expect((await callTool(b, author, 'hot_across', {})).status).toBe(404);
    expect((await op('/enable', 'POST')).status).toBe(200);
    await eventually(async () =>
      expect((await callTool(b, author, 'hot_across', {})).body.result).toEqual({ value: 5 }),
    );
    const deleted = await a.request('/v1/admin/generated-tools/hot_across', {
      method: 'DELETE',
      as: reviewer,
    });
    expect(deleted.status).toBe(204);
    await eventually(async () =>
      expect((await callTool(b, author, 'hot_across', {})).status).toBe(404),
    );
    expect(await toolNames(b, author)).not.toContain('hot_across');
  });
});
