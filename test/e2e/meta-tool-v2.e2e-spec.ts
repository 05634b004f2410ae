import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { networkNamespaceAvailable } from '@app/meta-tool';
import { eventually } from '../support/eventually';
import { mintToken, startGateway } from '../support/gateway';
import { watchStreams } from '../support/mcp';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import {
  analystAuthor,
  author,
  callTool,
  decide,
  filesOf,
  install,
  installedRows,
  propose,
  reviewer,
  toolNames,
  toolSource,
} from '../support/meta-tool';

/** Every meta_tool setting back to its default, so gateways of one file do not share them. */
const DEFAULTS = {
  META_TOOL_TIMEOUT_MS: '4000',
  META_TOOL_ENABLED: '',
  META_TOOL_APPROVAL_WAIT_MS: '',
  META_TOOL_MAX_PENDING_PER_USER: '',
  META_TOOL_MAX_TOOLS_PER_TENANT: '',
};

const rita: TokenClaims = {
  tenant: 'acme',
  user: 'rita',
  roles: ['sales_rep', 'tool_author'],
  claims: { region: 'east' },
};
const wes: TokenClaims = {
  tenant: 'acme',
  user: 'wes',
  roles: ['sales_rep', 'tool_author'],
  claims: { region: 'west' },
};
const finn: TokenClaims = { tenant: 'acme', user: 'finn', roles: ['finance', 'tool_author'] };
const globexAuthor: TokenClaims = { tenant: 'globex', user: 'gia', roles: ['tool_author'] };
const acmeAdmin: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };

const MY_REGION = toolSource(
  'my_region_sales',
  "const page = await ctx.report('sales_in_my_region', { order_date: { start: '2025-01-01', end: '2026-12-31' } }); return { user: ctx.user.user_id, claims: ctx.user.claims, regions: [...new Set(page.rows.map((r) => r.region))], months: page.rows.length };",
);

async function catalogVersion(gw: RunningGateway, tenant = 'acme'): Promise<number> {
  const { rows } = await sql<{
    v: string;
  }>`SELECT catalog_version AS v FROM gateway.tenants WHERE id = ${tenant}`.execute(
    gw.database.handle.db,
  );
  return Number(rows[0].v);
}

describe('meta_tool v2: caller-scoped data (e2e)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway(DEFAULTS);
  });
  afterAll(() => gw.close());

  it('refuses a table to a caller whose reports do not read it, and serves it to one whose do', async () => {
    const decision = await install(
      gw,
      {
        name: 'stock_raw',
        code: toolSource(
          'stock_raw',
          "const t = 'inven' + 'tory'; return ctx.query(`SELECT count(*)::int AS n FROM ${t}`);",
        ),
        testArgs: {},
      },
      analystAuthor,
    );
    expect(decision.status).toBe('installed');
    const analyst = await callTool(gw, analystAuthor, 'stock_raw', {});
    expect(analyst.body.is_error).toBe(false);
    expect((analyst.body.result?.value as Array<{ n: number }>)[0].n).toBeGreaterThan(0);
    // finance sees no inventory report: the same tool must not read inventory for them
    const finance = await callTool(gw, finn, 'stock_raw', {});
    expect(finance.body.is_error).toBe(true);
    expect(finance.body.error?.message).toContain(
      'table "inventory" is not read by any report the caller may use',
    );
  });

  it('gives each caller of one shared tool their own rows through ctx.report (claims bound)', async () => {
    const decision = await install(
      gw,
      { name: 'my_region_sales', code: MY_REGION, testArgs: {} },
      rita,
    );
    expect(decision.status).toBe('installed');
    const east = await callTool(gw, rita, 'my_region_sales', {});
    const west = await callTool(gw, wes, 'my_region_sales', {});
    expect(east.body.result?.value).toMatchObject({
      user: 'rita',
      claims: { region: 'east' },
      regions: ['east'],
    });
    expect(west.body.result?.value).toMatchObject({
      user: 'wes',
      claims: { region: 'west' },
      regions: ['west'],
    });
    // an analyst does not see sales_in_my_region: ctx.report refuses, naming what they have
    const analyst = await callTool(gw, analystAuthor, 'my_region_sales', {});
    expect(analyst.body.error?.message).toContain(
      'no report "sales_in_my_region" among the reports the caller may use',
    );
  });

  it('keeps raw SQL off tables that a visible report reads under an identity-bound parameter', async () => {
    // statically: rita's literal SQL over orders is refused before anything is stored
    const proposed = await propose(
      gw,
      {
        name: 'all_orders_literal',
        code: toolSource('all_orders_literal', "return ctx.query('SELECT count(*) FROM orders');"),
      },
      rita,
    );
    expect(proposed.body.error?.message).toContain('table "orders" is not in the whitelist');
    // at run time: an analyst's tool over orders, called by rita, is refused with the way out
    await install(
      gw,
      {
        name: 'orders_raw',
        code: toolSource(
          'orders_raw',
          "const t = 'ord' + 'ers'; return ctx.query(`SELECT region, count(*)::int AS n FROM ${t} GROUP BY region`);",
        ),
        testArgs: {},
      },
      analystAuthor,
    );
    const asRita = await callTool(gw, rita, 'orders_raw', {});
    expect(asRita.body.is_error).toBe(true);
    expect(asRita.body.error?.message).toMatch(
      /table "orders" is read by report (sales_in_my_region|my_orders) under the identity-bound parameter :(claim_region|user_id), so raw SQL may not read it; use ctx.report/,
    );
    expect((await callTool(gw, analystAuthor, 'orders_raw', {})).body.is_error).toBe(false);
  });

  it("a user of tenant B can neither call tenant A's generated tool nor read its proposals", async () => {
    await install(
      gw,
      { name: 'acme_only', code: toolSource('acme_only', "return 'acme';"), testArgs: {} },
      author,
    );
    const call = await callTool(gw, globexAuthor, 'acme_only', {});
    expect(call.status).toBe(404);
    const proposed = await propose(gw, {
      name: 'acme_secret',
      code: toolSource('acme_secret', 'return 1;'),
    });
    const id = String(proposed.body.result?.proposal_id);
    const asked = await propose(gw, { proposal_id: id }, globexAuthor);
    expect(asked.body.error?.message).toContain(`no proposal ${id} of yours in your tenant`);
    const listed = await gw.request('/v1/admin/generated-tools', {
      as: { tenant: 'globex', user: 'gus', roles: ['tool_reviewer'] },
    });
    const names = ((await listed.json()) as { tools: Array<{ name: string }> }).tools.map(
      (t) => t.name,
    );
    expect(names).not.toContain('acme_only');
    const disable = await gw.request('/v1/admin/generated-tools/acme_only/disable', {
      method: 'POST',
      as: { tenant: 'globex', user: 'gus', roles: ['tool_reviewer'] },
      json: {},
    });
    expect(disable.status).toBe(404);
    await decide(gw, id, 'reject');
  });
});

describe('meta_tool v2: the loop back to the model (e2e)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway({ ...DEFAULTS, META_TOOL_APPROVAL_WAIT_MS: '0' });
  });
  afterAll(() => gw.close());

  it('answers meta_tool {proposal_id} with the state, then the full gate outcome, to the proposer only', async () => {
    const proposed = await propose(gw, {
      name: 'fails_later',
      code: toolSource('fails_later', "throw new Error('boom at run time');"),
      testArgs: {},
    });
    const id = String(proposed.body.result?.proposal_id);
    const before = await propose(gw, { proposal_id: id });
    expect(before.body).toMatchObject({ is_error: false, result: { status: 'pending' } });
    expect(before.body.text).toContain(`pending approval ${id}`);
    await decide(gw, id, 'approve');
    const after = await propose(gw, { proposal_id: id });
    expect(after.body.is_error).toBe(true);
    expect(after.body.error?.message).toBe(
      'the runtime gate refused fails_later: run: boom at run time. Nothing was installed; the file set and the registry are unchanged.',
    );
    // another author of the same tenant is told nothing about it
    const other = await propose(gw, { proposal_id: id }, { ...author, user: 'someone_else' });
    expect(other.body.error?.message).toContain('of yours');
  });

  it('tells the proposer over MCP: notifications/message with the outcome, then tools/list_changed', async () => {
    const token = await mintToken(author);
    const client = new Client({ name: 'proposer', version: '1' });
    const messages: unknown[] = [];
    let listChanged = 0;
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      messages.push(n.params.data);
    });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged += 1;
    });
    const streams = watchStreams();
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: streams.fetch,
      }),
    );
    // the outcome and list_changed travel on the notification stream the SDK opens after connect
    await streams.opened(1);
    try {
      const called = await client.callTool({
        name: 'meta_tool',
        arguments: { name: 'mcp_loop', code: toolSource('mcp_loop', 'return 7;'), testArgs: {} },
      });
      const id = (called.structuredContent as { proposal_id?: string } | undefined)?.proposal_id;
      const pending = await gw.request('/v1/admin/meta-tool/proposals', { as: reviewer });
      const proposal = (
        (await pending.json()) as { proposals: Array<{ id: string; name: string }> }
      ).proposals.find((p) => p.name === 'mcp_loop');
      expect(proposal?.name).toBe('mcp_loop');
      if (id) expect(proposal?.id).toBe(id);
      // a standalone GET stream receives server-initiated notifications
      await decide(gw, proposal!.id, 'approve');
      await eventually(async () => {
        expect(messages).toContainEqual(
          expect.objectContaining({
            proposal_id: proposal!.id,
            name: 'mcp_loop',
            status: 'installed',
          }),
        );
        expect(listChanged).toBeGreaterThan(0);
      });
    } finally {
      await client.close();
    }
  });
});

describe('meta_tool v2: META_TOOL_APPROVAL_WAIT_MS (e2e)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway({ ...DEFAULTS, META_TOOL_APPROVAL_WAIT_MS: '15000' });
  });
  afterAll(() => gw.close());

  it('answers the runtime gate outcome inline when the reviewer decides within the wait', async () => {
    const call = propose(gw, {
      name: 'quick_review',
      code: toolSource('quick_review', "return 'reviewed';"),
      testArgs: {},
    });
    const id = await eventually(async () => {
      const res = await gw.request('/v1/admin/meta-tool/proposals', { as: reviewer });
      const found = (
        (await res.json()) as { proposals: Array<{ id: string; name: string }> }
      ).proposals.find((p) => p.name === 'quick_review');
      expect(found?.name).toBe('quick_review');
      return found!.id;
    });
    await decide(gw, id, 'approve');
    const answered = await call;
    expect(answered.body.is_error).toBe(false);
    expect(answered.body.text).toContain(
      'installed quick_review; its smoke call returned "reviewed"',
    );
  });
});

describe('meta_tool v2: operator controls (e2e)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway(DEFAULTS);
  });
  afterAll(() => gw.close());

  it('lists generated tools with author, approver, smoke-tested flag and call statistics', async () => {
    await install(gw, { name: 'op_untested', code: toolSource('op_untested', 'return 1;') });
    await install(gw, {
      name: 'op_flaky',
      code: toolSource('op_flaky', "if (args.n === 1) throw new Error('bad n'); return 2;"),
      testArgs: {},
    });
    await callTool(gw, author, 'op_flaky', { n: 1 });
    await callTool(gw, author, 'op_flaky', { n: 2 });
    // the model is told too
    const list = await gw.request('/v1/tools', { as: author });
    const tools = (
      (await list.json()) as {
        tools: Array<{ function: { name: string; description: string } }>;
      }
    ).tools;
    expect(tools.find((t) => t.function.name === 'op_untested')?.function.description).toContain(
      '(never smoke-tested',
    );
    expect(tools.find((t) => t.function.name === 'op_flaky')?.function.description).not.toContain(
      'never smoke-tested',
    );
    await eventually(
      async () => {
        const res = await gw.request('/v1/admin/generated-tools', { as: reviewer });
        const body = (await res.json()) as {
          meta_tool_enabled: boolean;
          tools: Array<Record<string, unknown>>;
        };
        expect(body.meta_tool_enabled).toBe(true);
        expect(body.tools.find((t) => t.name === 'op_untested')).toMatchObject({
          status: 'active',
          author: 'ada',
          approved_by: 'rex',
          smoke_tested: false,
        });
        expect(body.tools.find((t) => t.name === 'op_flaky')).toMatchObject({
          smoke_tested: true,
          calls: 2,
          errors: 1,
          error_rate: 0.5,
          last_error: expect.stringContaining('bad n'),
        });
      },
      { timeoutMs: 8000, intervalMs: 200 },
    );
  });

  it('disables and enables a tool: gone from lists and calls at once, back again, each a new catalog version', async () => {
    await install(gw, {
      name: 'op_toggle',
      code: toolSource('op_toggle', 'return 3;'),
      testArgs: {},
    });
    const v0 = await catalogVersion(gw);
    const off = await gw.request('/v1/admin/generated-tools/op_toggle/disable', {
      method: 'POST',
      as: reviewer,
      json: {},
    });
    expect(off.status).toBe(200);
    expect(await catalogVersion(gw)).toBeGreaterThan(v0);
    expect(await toolNames(gw, author)).not.toContain('op_toggle');
    expect((await callTool(gw, author, 'op_toggle', {})).status).toBe(404);
    const on = await gw.request('/v1/admin/generated-tools/op_toggle/enable', {
      method: 'POST',
      as: acmeAdmin,
      json: {},
    });
    expect(on.status).toBe(200);
    expect(await toolNames(gw, author)).toContain('op_toggle');
    expect((await callTool(gw, author, 'op_toggle', {})).body.result).toEqual({ value: 3 });
    // a plain author is no operator
    const denied = await gw.request('/v1/admin/generated-tools/op_toggle/disable', {
      method: 'POST',
      as: author,
      json: {},
    });
    expect(denied.status).toBe(403);
  });

  it('deletes a tool: row and file gone, the audit log keeps the whole record', async () => {
    await install(gw, { name: 'op_gone', code: toolSource('op_gone', 'return 4;'), testArgs: {} });
    expect(filesOf(gw)).toContain('op_gone.mjs');
    const res = await gw.request('/v1/admin/generated-tools/op_gone', {
      method: 'DELETE',
      as: reviewer,
    });
    expect(res.status).toBe(204);
    expect((await installedRows(gw)).map((r) => r.name)).not.toContain('op_gone');
    expect(filesOf(gw)).not.toContain('op_gone.mjs');
    expect(filesOf(gw).filter((f) => f.startsWith('.tmp-'))).toEqual([]);
    expect((await callTool(gw, author, 'op_gone', {})).status).toBe(404);
    const { rows } = await sql<{ detail: { deleted: { source: string } } }>`
      SELECT detail FROM gateway.audit_log WHERE tenant_id = 'acme' AND action = 'delete' AND subject = 'op_gone'`.execute(
      gw.database.handle.db,
    );
    expect(rows[0].detail.deleted.source).toContain('return 4;');
    const again = await gw.request('/v1/admin/generated-tools/op_gone', {
      method: 'DELETE',
      as: reviewer,
    });
    expect(again.status).toBe(404);
  });

  it('switches meta_tool off and on for one tenant, refusing in words the model can read', async () => {
    const off = await gw.request('/v1/admin/generated-tools/meta-tool/disable', {
      method: 'POST',
      as: acmeAdmin,
      json: {},
    });
    expect(off.status).toBe(200);
    const refused = await propose(gw, {
      name: 'while_off',
      code: toolSource('while_off', 'return 1;'),
    });
    expect(refused.body.error).toEqual({
      code: 'REFUSED',
      message:
        'meta_tool is switched off for your tenant by an operator; nothing was stored, imported, run or written',
    });
    // another tenant is not affected
    const globex = await propose(
      gw,
      { name: 'globex_on', code: toolSource('globex_on', 'return 1;') },
      globexAuthor,
    );
    expect(globex.body.is_error).toBe(false);
    await gw.request('/v1/admin/generated-tools/meta-tool/enable', {
      method: 'POST',
      as: acmeAdmin,
      json: {},
    });
    expect(
      (await propose(gw, { proposal_id: String(globex.body.result?.proposal_id) }, globexAuthor))
        .body.result,
    ).toMatchObject({ status: 'pending' });
  });

  it('keeps meta_tool listed for its authors whatever business context is passed', async () => {
    for (const context of ['SALES', 'FINANCE', 'INVENTORY']) {
      const res = await gw.request(`/v1/tools?context=${context}`, { as: author });
      const names = (
        (await res.json()) as { tools: Array<{ function: { name: string } }> }
      ).tools.map((t) => t.function.name);
      expect(names).toContain('meta_tool');
    }
  });

  it('says on /healthz which sandbox layers are active', async () => {
    // probed here on its own: bubblewrap first, else unshare -rn, else nothing
    const bwrap =
      spawnSync('bwrap', ['--unshare-all', '--ro-bind', '/', '/', 'true'], { stdio: 'ignore' })
        .status === 0;
    const wrapper = bwrap ? 'bubblewrap' : networkNamespaceAvailable() ? 'unshare' : 'none';
    const res = await gw.request('/healthz');
    expect(await res.json()).toEqual({
      status: 'ok',
      sandbox: {
        engine: 'quickjs-wasm',
        process: 'pooled-child',
        permission_model: true,
        wrapper,
        network_namespace: wrapper !== 'none',
        filesystem_view: bwrap,
        pid_namespace: bwrap,
        pool_size: 4,
        enabled: true,
      },
    });
  });
});

describe('meta_tool v2: caps and the global switch (e2e)', () => {
  it('caps pending proposals per user and tools per tenant, each refusal model-readable', async () => {
    const gw = await startGateway({
      ...DEFAULTS,
      META_TOOL_MAX_PENDING_PER_USER: '1',
      META_TOOL_MAX_TOOLS_PER_TENANT: '1',
    });
    try {
      const first = await propose(gw, {
        name: 'cap_one',
        code: toolSource('cap_one', 'return 1;'),
      });
      expect(first.body.is_error).toBe(false);
      const second = await propose(gw, {
        name: 'cap_two',
        code: toolSource('cap_two', 'return 2;'),
      });
      expect(second.body.error?.message).toContain(
        'limit: you have 1 proposals waiting for review, the most allowed (META_TOOL_MAX_PENDING_PER_USER=1)',
      );
      await decide(gw, String(first.body.result?.proposal_id), 'approve');
      const third = await propose(gw, {
        name: 'cap_three',
        code: toolSource('cap_three', 'return 3;'),
      });
      expect(third.body.error?.message).toContain(
        'limit: your tenant has 1 generated tools, the most allowed (META_TOOL_MAX_TOOLS_PER_TENANT=1)',
      );
      // replacing the installed one is not a new tool
      const replace = await propose(gw, {
        name: 'cap_one',
        code: toolSource('cap_one', 'return 11;'),
      });
      expect(replace.body.is_error).toBe(false);
    } finally {
      await gw.close();
    }
  });

  it('META_TOOL_ENABLED=0: meta_tool is not offered and generated tools do not run', async () => {
    const gw = await startGateway({ ...DEFAULTS, META_TOOL_ENABLED: '0' });
    try {
      expect(await toolNames(gw, author)).not.toContain('meta_tool');
      expect(
        ((await (await gw.request('/healthz')).json()) as { sandbox: { enabled: boolean } }).sandbox
          .enabled,
      ).toBe(false);
      expect(existsSync(path.join(gw.toolsDir, 'acme'))).toBe(false);
    } finally {
      await gw.close();
    }
  });
});
