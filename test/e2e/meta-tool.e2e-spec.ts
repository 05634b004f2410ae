import { existsSync, linkSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Metrics } from '@app/registry';
import { sql } from 'kysely';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { changeCatalog, mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import {
  analystAuthor,
  author,
  callTool,
  decide,
  example,
  filesOf,
  globexReviewer,
  install,
  installedRows,
  propose,
  reviewer,
  toolNames,
  toolSource,
} from '../support/meta-tool';

const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const MARKDOWN =
  '# Q1 review\nSome words here.\n- east up\n- west flat\n## Risks\n- churn\n```\n# not a heading\n```\n';

describe('meta_tool pipeline (e2e, real Postgres, real sandbox)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway({ META_TOOL_TIMEOUT_MS: '3000' });
  });
  afterAll(() => gw.close());

  it('is a built-in visible only to tool_author, in REST and MCP formats', async () => {
    expect(await toolNames(gw, author)).toContain('meta_tool');
    expect(await toolNames(gw, alice)).not.toContain('meta_tool');
    expect(await toolNames(gw, { ...alice, roles: ['admin'] })).not.toContain('meta_tool');
    expect((await callTool(gw, alice, 'meta_tool', { name: 'x', code: '' })).status).toBe(404);
    const mcp = (await (await gw.request('/v1/tools?format=mcp', { as: author })).json()) as {
      tools: Array<{ name: string; annotations: { readOnlyHint: boolean } }>;
    };
    expect(mcp.tools.find((t) => t.name === 'meta_tool')?.annotations.readOnlyHint).toBe(false);
  });

  it('takes the Markdown example through every gate; callable from the next list on', async () => {
    const code = example('markdown_outline.mjs');
    const before = await toolNames(gw, author);
    const proposed = await propose(gw, {
      name: 'markdown_outline',
      code,
      testArgs: { markdown: MARKDOWN },
    });
    expect(proposed.body.is_error).toBe(false);
    const id = String(proposed.body.result?.proposal_id);
    expect(proposed.body.text).toMatch(
      new RegExp(`^pending approval ${id}; nothing was imported, run or written`),
    );
    expect(filesOf(gw)).toEqual([]);
    expect(await toolNames(gw, author)).toEqual(before);

    // the reviewer sees the full source and test arguments
    const shown = (await (
      await gw.request(`/v1/admin/meta-tool/proposals/${id}`, { as: reviewer })
    ).json()) as { source: string; testArgs: unknown; proposedBy: string; sha256: string };
    expect(shown).toMatchObject({
      source: code,
      testArgs: { markdown: MARKDOWN },
      proposedBy: 'ada',
    });

    const approved = await decide(gw, id, 'approve');
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'installed', name: 'markdown_outline' });
    expect(String(approved.body.message)).toContain(
      'visible from the next tool list on, not in the round that created it',
    );
    expect(filesOf(gw)).toEqual(['markdown_outline.mjs']);
    expect(readFileSync(path.join(gw.toolsDir, 'acme', 'markdown_outline.mjs'), 'utf8')).toBe(code);
    expect((await installedRows(gw))[0]).toMatchObject({
      name: 'markdown_outline',
      approved_by: 'rex',
      sha256: shown.sha256,
    });

    expect(await toolNames(gw, author)).toContain('markdown_outline');
    const called = await callTool(gw, author, 'markdown_outline', { markdown: MARKDOWN });
    expect(called.body.is_error).toBe(false);
    expect(called.body.result).toEqual({
      value: {
        headings: 2,
        outline: [
          { level: 1, title: 'Q1 review', list_items: 2, words: 9 },
          { level: 2, title: 'Risks', list_items: 1, words: 8 },
        ],
      },
    });
    expect(called.body.text?.length).toBeLessThanOrEqual(400);
    // rule 4: arguments reach run() as given (the schema guides the model only); run()
    // defends itself, and its refusal is what the model reads
    const wrong = await callTool(gw, author, 'markdown_outline', { md: 'x' });
    expect(wrong.body.error).toEqual({
      code: 'TOOL_FAILED',
      message: 'markdown_outline failed (run): markdown must be a string',
    });
  });

  it('cuts what the model sees to 400 characters and keeps the full structured result', async () => {
    await install(gw, {
      name: 'long_text',
      code: toolSource('long_text', "return 'x'.repeat(5000);"),
      testArgs: {},
    });
    const called = await callTool(gw, author, 'long_text', {});
    expect(called.body.text).toHaveLength(400);
    expect(called.body.result?.value).toHaveLength(5000);
  });

  it('reads data only through ctx.query (guard + read-only executor)', async () => {
    // v2: raw SQL reads only the caller's tables, so the author needs reports over orders
    const decision = await install(
      gw,
      {
        name: 'orders_per_status',
        code: example('orders_per_status.mjs'),
        testArgs: { since: '2026-01-01' },
      },
      analystAuthor,
    );
    expect(decision.status).toBe('installed');
    const called = await callTool(gw, analystAuthor, 'orders_per_status', { since: '2026-06-01' });
    const { rows } = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM tenant_acme.orders WHERE order_date >= '2026-06-01'`.execute(
      gw.database.handle.db,
    );
    const statuses = (called.body.result?.value as { statuses: Array<{ orders: number }> })
      .statuses;
    expect(statuses.reduce((sum, s) => sum + s.orders, 0)).toBe(rows[0].n);
  });

  it('leaves no trace when the reviewer rejects', async () => {
    const proposed = await propose(gw, {
      name: 'rejected_tool',
      code: toolSource('rejected_tool', 'return 1;'),
      testArgs: {},
    });
    const id = String(proposed.body.result?.proposal_id);
    const rejected = await decide(gw, id, 'reject');
    expect(rejected.body).toMatchObject({
      status: 'rejected',
      message: expect.stringContaining(
        'nothing was imported, tested or written, and the registry is unchanged',
      ),
    });
    expect(filesOf(gw)).not.toContain('rejected_tool.mjs');
    expect((await installedRows(gw)).map((r) => r.name)).not.toContain('rejected_tool');
    expect(await toolNames(gw, author)).not.toContain('rejected_tool');
    expect((await decide(gw, id, 'approve')).status).toBe(409);
  });

  it('refuses the proposer as reviewer (403), another tenant reviewer (404), a non-reviewer (403)', async () => {
    const proposed = await propose(gw, {
      name: 'self_review',
      code: toolSource('self_review', 'return 1;'),
    });
    const id = String(proposed.body.result?.proposal_id);
    expect(
      (await decide(gw, id, 'approve', { ...author, roles: ['tool_author', 'tool_reviewer'] }))
        .status,
    ).toBe(403);
    expect((await decide(gw, id, 'approve', globexReviewer)).status).toBe(404);
    expect(
      (await gw.request(`/v1/admin/meta-tool/proposals/${id}`, { as: globexReviewer })).status,
    ).toBe(404);
    const globexList = (await (
      await gw.request('/v1/admin/meta-tool/proposals', { as: globexReviewer })
    ).json()) as { proposals: Array<{ id: string }> };
    expect(globexList.proposals.map((p) => p.id)).not.toContain(id);
    expect((await decide(gw, id, 'approve', alice)).status).toBe(403);
    // still pending, nothing written
    expect(filesOf(gw)).not.toContain('self_review.mjs');
    await decide(gw, id, 'reject');
  });

  it('runs each of three versions of one name with its own code (no ESM cache)', async () => {
    for (const version of [1, 2, 3]) {
      const decision = await install(gw, {
        name: 'versioned',
        code: toolSource('versioned', `return { version: ${version} };`),
        testArgs: {},
      });
      expect(decision.status).toBe('installed');
      expect((await callTool(gw, author, 'versioned', {})).body.result).toEqual({
        value: { version },
      });
    }
  });

  it('keeps the old version working when a replacement fails the runtime gate', async () => {
    await install(gw, {
      name: 'stable',
      code: toolSource('stable', "return 'old';"),
      testArgs: {},
    });
    const oldFile = readFileSync(path.join(gw.toolsDir, 'acme', 'stable.mjs'), 'utf8');
    const decision = await install(gw, {
      name: 'stable',
      code: toolSource('stable', "throw new Error('broken');"),
      testArgs: {},
    });
    expect(decision).toMatchObject({
      status: 'failed',
      message: expect.stringContaining('the installed version keeps working'),
    });
    expect(readFileSync(path.join(gw.toolsDir, 'acme', 'stable.mjs'), 'utf8')).toBe(oldFile);
    expect((await callTool(gw, author, 'stable', {})).body.result).toEqual({ value: 'old' });
    expect(filesOf(gw).filter((f) => f.startsWith('.tmp-'))).toEqual([]);
  });

  it('marks a tool approved without testArgs as never smoke-tested', async () => {
    const decision = await install(gw, {
      name: 'untested',
      code: toolSource('untested', 'return 1;'),
    });
    expect(decision).toMatchObject({
      status: 'installed',
      message: expect.stringContaining('never smoke-tested'),
      smoke_preview: null,
    });
  });

  it('lets an admin grant a generated tool to another role', async () => {
    // its own tool, so the test passes alone (-t) as well as in the file
    expect(
      await install(gw, { name: 'granted', code: toolSource('granted', 'return 1;') }),
    ).toMatchObject({
      status: 'installed',
    });
    expect(await toolNames(gw, author)).toContain('granted');
    expect(await toolNames(gw, alice)).not.toContain('granted');
    await changeCatalog(gw, 'acme', (db) =>
      sql`INSERT INTO gateway.role_grants (tenant_id, role, report_id) VALUES ('acme', 'analyst', 'granted')`.execute(
        db,
      ),
    );
    expect(await toolNames(gw, alice)).toContain('granted');
    expect((await callTool(gw, alice, 'granted', {})).body).toMatchObject({
      is_error: false,
      result: { value: 1 },
    });
    expect(
      await toolNames(gw, { tenant: 'globex', user: 'g', roles: ['tool_author'] }),
    ).not.toContain('granted');
  });

  it('never lets a generated tool shadow a built-in (same-name case in the registry merge)', async () => {
    // a row that bypassed every gate, named like the built-in
    const source = toolSource('meta_tool', "return 'impostor';");
    const { createHash } = await import('node:crypto');
    await changeCatalog(gw, 'acme', (db) =>
      sql`INSERT INTO gateway.generated_tools (tenant_id, name, description, input_schema, source, sha256, proposal_id, approved_by, smoke_tested)
              VALUES ('acme', 'meta_tool', 'impostor', '{"type":"object"}', ${source}, ${createHash('sha256').update(source).digest('hex')}, gen_random_uuid(), 'sql', false)`.execute(
        db,
      ),
    );
    const tools = (await (
      await gw.request('/v1/tools?format=anthropic', { as: author })
    ).json()) as { tools: Array<{ name: string; description: string }> };
    const metaTools = tools.tools.filter((t) => t.name === 'meta_tool');
    expect(metaTools).toHaveLength(1);
    expect(metaTools[0].description).not.toBe('impostor');
    const call = await callTool(gw, author, 'meta_tool', { name: 'bad name', code: 'x' });
    expect(call.body.error?.code).toBe('REFUSED');
  });

  it('skips a generated tool whose stored source does not match its sha256, and serves the rest', async () => {
    for (const name of ['tampered', 'intact'])
      expect(await install(gw, { name, code: toolSource(name, 'return 1;') })).toMatchObject({
        status: 'installed',
      });
    expect(await toolNames(gw, author)).toEqual(expect.arrayContaining(['tampered', 'intact']));
    await changeCatalog(gw, 'acme', (db) =>
      sql`UPDATE gateway.generated_tools SET source = source || '// tampered' WHERE tenant_id = 'acme' AND name = 'tampered'`.execute(
        db,
      ),
    );
    const names = await toolNames(gw, author);
    expect(names).not.toContain('tampered');
    expect(names).toContain('intact');
    expect(names).toContain('meta_tool');
    expect((await callTool(gw, author, 'tampered', {})).status).toBe(404);
    expect((await callTool(gw, author, 'intact', {})).body).toMatchObject({ is_error: false });
  });

  it('keeps every file write atomic: a replacement is a new file renamed into place, no temp file is left', async () => {
    const file = path.join(gw.toolsDir, 'acme', 'atomic.mjs');
    const v1 = toolSource('atomic', 'return 1;');
    expect(await install(gw, { name: 'atomic', code: v1, testArgs: {} })).toMatchObject({
      status: 'installed',
    });
    // a second name for the installed file: a write in place (truncate, write) would change
    // what it reads; a new file renamed over the old name leaves it as it was
    const witness = path.join(gw.toolsDir, 'atomic-witness.mjs');
    linkSync(file, witness);
    const v2 = toolSource('atomic', 'return 2;');
    expect(await install(gw, { name: 'atomic', code: v2, testArgs: {} })).toMatchObject({
      status: 'installed',
    });
    expect(readFileSync(file, 'utf8')).toBe(v2);
    expect(readFileSync(witness, 'utf8')).toBe(v1);
    expect(statSync(file).ino).not.toBe(statSync(witness).ino);
    expect(filesOf(gw).filter((f) => f.startsWith('.tmp-'))).toEqual([]);
    expect(existsSync(path.join(gw.toolsDir, 'globex'))).toBe(false);
    expect((await callTool(gw, author, 'atomic', {})).body.result).toEqual({ value: 2 });
  });

  it('counts each gate in /metrics (pass/fail and time)', async () => {
    const m = gw.app.get(Metrics);
    const gate = (g: string, outcome: string) =>
      m.value('gateway_meta_tool_gate_total', { gate: g, outcome });
    const timed = async () => {
      const text = await (await gw.request('/metrics')).text();
      const line = text
        .split('\n')
        .find((l) =>
          l.startsWith(
            'gateway_meta_tool_gate_duration_seconds_count{gate="runtime",outcome="pass"}',
          ),
        );
      return line ? Number(line.split(' ')[1]) : 0;
    };
    const before = {
      staticPass: gate('static', 'pass'),
      staticFail: gate('static', 'fail'),
      runtimePass: gate('runtime', 'pass'),
      runtimeFail: gate('runtime', 'fail'),
      timed: await timed(),
    };
    // one of each, made here: a pass through both gates, a runtime failure, a static refusal
    await install(gw, {
      name: 'gate_pass',
      code: toolSource('gate_pass', 'return 1;'),
      testArgs: {},
    });
    await install(gw, {
      name: 'gate_fail',
      code: toolSource('gate_fail', "throw new Error('no');"),
      testArgs: {},
    });
    expect((await propose(gw, { name: 'Gate_Bad', code: 'x' })).body.is_error).toBe(true);
    expect(gate('static', 'pass')).toBe(before.staticPass + 2);
    expect(gate('static', 'fail')).toBe(before.staticFail + 1);
    expect(gate('runtime', 'pass')).toBe(before.runtimePass + 1);
    expect(gate('runtime', 'fail')).toBe(before.runtimeFail + 1);
    // durations are a histogram (P50/P95 derivable), by gate and outcome, on /metrics
    expect(await timed()).toBe(before.timed + 1);
  });

  it('serves meta_tool and generated tools over MCP too, with the 400-character text', async () => {
    // its own tool, so the test passes alone (-t) as well as in the file
    expect(
      await install(gw, {
        name: 'mcp_long_text',
        code: toolSource('mcp_long_text', "return 'x'.repeat(5000);"),
        testArgs: {},
      }),
    ).toMatchObject({ status: 'installed' });
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${await mintToken(author)}` } },
    });
    const client = new Client({ name: 'meta', version: '1' });
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['meta_tool', 'mcp_long_text']));
      const result = await client.callTool({ name: 'mcp_long_text', arguments: {} });
      expect((result.content as Array<{ text: string }>)[0].text).toHaveLength(400);
      expect((result.structuredContent as { value: string }).value).toHaveLength(5000);
      const pending = await client.callTool({
        name: 'meta_tool',
        arguments: { name: 'via_mcp', code: toolSource('via_mcp', 'return 1;') },
      });
      expect((pending.content as Array<{ text: string }>)[0].text).toMatch(
        /^pending approval [0-9a-f-]{36}; nothing was imported, run or written/,
      );
      expect(pending.structuredContent).toMatchObject({
        proposal_id: expect.any(String),
        status: 'pending',
      });
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });
});
