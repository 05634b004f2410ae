import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { startGateway } from '../support/gateway';
import type { RunningGateway } from '../support/gateway';
import {
  author,
  decide,
  filesOf,
  installedRows,
  propose,
  reviewer,
  toolSource,
} from '../support/meta-tool';

/**
 * Adversarial proposals. Each is refused at the gate named, and leaves no file, no installed
 * row and no registry change; escapes from the sandbox are stopped where they are tried.
 * docs/meta-tool.md's adversarial table lists these cases.
 */
interface Case {
  id: string;
  what: string;
  name: string;
  code: string;
  testArgs?: Record<string, unknown>;
  /** 'static': refused by meta_tool itself; 'runtime': refused when approved; 'runtime-ok': installed, the smoke call shows the limit held */
  gate: 'static' | 'runtime' | 'runtime-ok';
  /** a fragment of the refusal message (a RegExp where two outer walls may be first) */
  says: string | RegExp;
}

const pad = (n: number) => 'x'.repeat(n);

const CASES: Case[] = [
  {
    id: 'S1',
    what: 'name with upper case',
    name: 'BadName',
    code: toolSource('BadName', 'return 1;'),
    gate: 'static',
    says: 'name must match ^[a-z][a-z0-9_]*$; got "BadName"',
  },
  {
    id: 'S2',
    what: 'path traversal in the name',
    name: '../../etc/evil',
    code: toolSource('evil', 'return 1;'),
    gate: 'static',
    says: 'got "../../etc/evil"',
  },
  {
    id: 'S3',
    what: 'clash with the built-in meta_tool',
    name: 'meta_tool',
    code: toolSource('meta_tool', 'return 1;'),
    gate: 'static',
    says: 'name "meta_tool" is a built-in tool',
  },
  {
    id: 'S4',
    what: 'a query_report_ name',
    name: 'query_report_sales_by_region',
    code: toolSource('query_report_sales_by_region', 'return 1;'),
    gate: 'static',
    says: 'names starting with query_report_ belong to reports',
  },
  {
    id: 'S5',
    what: 'source over 100 KB',
    name: 'too_big',
    code: toolSource('too_big', 'return 1;', `// ${pad(102_400)}`),
    gate: 'static',
    says: 'the limit is 102400',
  },
  {
    id: 'S6',
    what: 'syntax error',
    name: 'broken_syntax',
    code: 'export default { name: "broken_syntax", run( {',
    gate: 'static',
    says: 'does not parse as an ES module',
  },
  {
    id: 'S7',
    what: 'no default export',
    name: 'no_export',
    code: 'export const name = "no_export";',
    gate: 'static',
    says: 'has no default export',
  },
  {
    id: 'S8',
    what: "static ctx.query('DELETE ...')",
    name: 'static_delete',
    code: toolSource('static_delete', "return ctx.query('DELETE FROM orders');"),
    gate: 'static',
    says: 'only SELECT statements are allowed; found DELETE',
  },
  {
    id: 'S9',
    what: 'static catalog read (pg_roles)',
    name: 'static_roles',
    code: toolSource('static_roles', "return ctx.query('SELECT rolname FROM pg_roles');"),
    gate: 'static',
    says: 'pg_roles',
  },
  {
    id: 'S10',
    what: 'static set_config',
    name: 'static_setconfig',
    code: toolSource(
      'static_setconfig',
      "return ctx.query(`SELECT set_config('app.tenant_id', 'globex', true)`);",
    ),
    gate: 'static',
    says: 'function set_config is not allowed',
  },
  {
    id: 'R1',
    what: 'contract: name differs from the file name',
    name: 'contract_name',
    code: toolSource('other_name', 'return 1;'),
    testArgs: {},
    gate: 'runtime',
    says: 'name must equal the file name "contract_name"',
  },
  {
    id: 'R2',
    what: 'contract: schema is not type object',
    name: 'contract_schema',
    code: "export default { name: 'contract_schema', description: 'x', schema: { type: 'string' }, async run() { return 1; } };",
    testArgs: {},
    gate: 'runtime',
    says: "schema must be a JSON Schema object with type: 'object'",
  },
  {
    id: 'R3',
    what: 'contract: invalid JSON Schema',
    name: 'contract_ajv',
    code: "export default { name: 'contract_ajv', description: 'x', schema: { type: 'object', properties: { a: { type: 'nonsense' } } }, async run() { return 1; } };",
    testArgs: {},
    gate: 'runtime',
    says: 'the schema does not compile',
  },
  {
    id: 'R4',
    what: 'smoke call throws',
    name: 'throws',
    code: toolSource('throws', "throw new Error('boom');"),
    testArgs: {},
    gate: 'runtime',
    says: 'run: boom',
  },
  {
    id: 'R5',
    what: 'smoke call never ends (CPU limit of the engine)',
    name: 'spins',
    code: toolSource('spins', 'for (;;) {}'),
    testArgs: {},
    gate: 'runtime',
    says: 'cpu: InternalError: interrupted',
  },
  {
    id: 'R6',
    what: 'memory bomb (the engine allocator, not a heap flag)',
    name: 'hog',
    code: toolSource('hog', 'const a = []; for (;;) a.push(new Array(1e6).fill(1));'),
    testArgs: {},
    gate: 'runtime',
    // the engine's allocator refuses past the limit; near it QuickJS may collect so often
    // that the wall clock ends the run first (the child is killed and replaced)
    says: /memory: InternalError: out of memory|timeout: the tool did not finish within 2000 ms/,
  },
  {
    id: 'R7',
    what: 'import of node:fs (writing into the project)',
    name: 'writes',
    code: toolSource(
      'writes',
      "fs.writeFileSync(process.cwd() + '/PWNED.txt', 'x'); return 1;",
      "import fs from 'node:fs';",
    ),
    gate: 'static',
    says: 'line 1: import of "node:fs" is not allowed: a generated tool has no host modules',
  },
  {
    id: 'R8',
    what: 'import of node:child_process',
    name: 'spawns',
    code: toolSource('spawns', "cp.exec('id'); return 1;", "import cp from 'node:child_process';"),
    gate: 'static',
    says: 'import of "node:child_process" is not allowed',
  },
  {
    id: 'R9',
    what: 'import of node:worker_threads',
    name: 'worker',
    code: toolSource(
      'worker',
      "new Worker('1', { eval: true }); return 1;",
      "import { Worker } from 'node:worker_threads';",
    ),
    gate: 'static',
    says: 'import of "node:worker_threads" is not allowed',
  },
  {
    id: 'R10',
    what: "reading the gateway's secret file (no fs in the engine)",
    name: 'reads_secret',
    code: toolSource(
      'reads_secret',
      "return require('fs').readFileSync('.data/dev-jwt-secret', 'utf8');",
    ),
    testArgs: {},
    gate: 'runtime',
    says: "run: ReferenceError: 'require' is not defined",
  },
  {
    id: 'R11',
    what: 'dynamic ctx.query DELETE (past the static gate)',
    name: 'dyn_delete',
    code: toolSource(
      'dyn_delete',
      "const verb = 'DEL' + 'ETE'; return ctx.query(`${verb} FROM orders`);",
    ),
    testArgs: {},
    gate: 'runtime',
    says: 'the SQL guard refused the query',
  },
  {
    id: 'R12',
    what: "dynamic query of another tenant's table",
    name: 'dyn_globex',
    code: toolSource(
      'dyn_globex',
      "const s = 'tenant_' + 'globex'; return ctx.query(`SELECT count(*) FROM ${s}.orders`);",
    ),
    testArgs: {},
    gate: 'runtime',
    says: 'is not in the whitelist',
  },
  {
    id: 'R13',
    what: 'raw TCP: import of node:net',
    name: 'raw_socket',
    code: toolSource(
      'raw_socket',
      "net.connect(5432, '127.0.0.1'); return 1;",
      "import net from 'node:net';",
    ),
    gate: 'static',
    says: 'import of "node:net" is not allowed',
  },
  {
    id: 'E19',
    what: 'UDP sends: import of node:dgram',
    name: 'udp_send',
    code: toolSource(
      'udp_send',
      "dgram.createSocket('udp4').send('x', 5432, '127.0.0.1'); return 1;",
      "import dgram from 'node:dgram';",
    ),
    gate: 'static',
    says: 'import of "node:dgram" is not allowed',
  },
  {
    id: 'E20',
    what: 'a DNS resolver pointed at any server: import of node:dns',
    name: 'dns_resolver',
    code: toolSource(
      'dns_resolver',
      "const r = new dns.Resolver(); r.setServers(['127.0.0.1:5432']); return 1;",
      "import dns from 'node:dns';",
    ),
    gate: 'static',
    says: 'import of "node:dns" is not allowed',
  },
  {
    id: 'E21',
    what: 'capturing connect requests: import of node:async_hooks',
    name: 'hook_capture',
    code: toolSource(
      'hook_capture',
      'createHook({ init() {} }).enable(); return 1;',
      "import { createHook } from 'node:async_hooks';",
    ),
    gate: 'static',
    says: 'import of "node:async_hooks" is not allowed',
  },
  {
    id: 'E22',
    what: 'listen() on a new port without an import',
    name: 'listens',
    code: toolSource(
      'listens',
      "process.mainModule.require('net').createServer().listen(0); return 1;",
    ),
    testArgs: {},
    gate: 'runtime',
    says: "ReferenceError: 'process' is not defined",
  },
  {
    id: 'R14',
    what: 'fetch to the network',
    name: 'fetches',
    code: toolSource('fetches', "return await fetch('http://127.0.0.1:5432/');"),
    testArgs: {},
    gate: 'runtime',
    says: "ReferenceError: 'fetch' is not defined",
  },
  {
    id: 'R15',
    what: 'killing the gateway (process.kill(ppid))',
    name: 'killer',
    code: toolSource('killer', "process.kill(process.ppid, 'SIGKILL'); return 1;"),
    testArgs: {},
    gate: 'runtime',
    says: "ReferenceError: 'process' is not defined",
  },
  {
    id: 'R16',
    what: 'importing code from a URL at run time',
    name: 'remote_import',
    code: toolSource('remote_import', "return await import('https://example.com/x.mjs');"),
    gate: 'static',
    says: 'import() is not allowed',
  },
  {
    id: 'R16b',
    what: 'import() built from strings at run time (past the static gate)',
    name: 'hidden_import',
    code: toolSource(
      'hidden_import',
      'const f = Function(\'return import("node:" + "fs")\'); return await f();',
    ),
    testArgs: {},
    gate: 'runtime',
    says: 'import is not available to generated tools',
  },
  {
    id: 'R17',
    what: 'test args that break its own schema',
    name: 'bad_test_args',
    code: toolSource('bad_test_args', 'return 1;'),
    testArgs: { n: 'not a number' },
    gate: 'runtime',
    says: "the test arguments do not match the tool's own schema: n must be an integer",
  },
  {
    id: 'R18',
    what: 'process.exit in run',
    name: 'exits',
    code: toolSource('exits', 'process.exit(0);'),
    testArgs: {},
    gate: 'runtime',
    says: "ReferenceError: 'process' is not defined",
  },
  {
    id: 'E1',
    what: 'raw TCP through handles: process.binding / new net.Server()._handle',
    name: 'tcp_handles',
    code: toolSource(
      'tcp_handles',
      "const tcp = process.binding('tcp_wrap'); return typeof tcp.TCP;",
    ),
    testArgs: {},
    gate: 'runtime',
    says: "ReferenceError: 'process' is not defined",
  },
  {
    id: 'E2',
    what: "process._debugProcess(process.ppid): the gateway's inspector",
    name: 'debug_parent',
    code: toolSource('debug_parent', 'process._debugProcess(process.ppid); return 1;'),
    testArgs: {},
    gate: 'runtime',
    says: "ReferenceError: 'process' is not defined",
  },
  {
    id: 'E3',
    what: 'Buffer memory outside the heap',
    name: 'buffers',
    code: toolSource(
      'buffers',
      'const all = []; for (;;) all.push(Buffer.alloc(1 << 26)); return all.length;',
    ),
    testArgs: {},
    gate: 'runtime',
    says: "ReferenceError: 'Buffer' is not defined",
  },
  {
    id: 'E3b',
    what: 'ArrayBuffer memory (the engine allocator bounds it)',
    name: 'array_buffers',
    code: toolSource(
      'array_buffers',
      'const all = []; for (;;) all.push(new ArrayBuffer(1 << 24)); return all.length;',
    ),
    testArgs: {},
    gate: 'runtime',
    says: /memory: InternalError: out of memory|timeout: the tool did not finish within 2000 ms/,
  },
  {
    id: 'E4',
    what: 'constructor escape: this.constructor.constructor("return process")()',
    name: 'ctor_escape',
    code: toolSource(
      'ctor_escape',
      "const p = ({}).constructor.constructor('return process')(); return p.env;",
    ),
    testArgs: {},
    gate: 'runtime',
    says: "ReferenceError: 'process' is not defined",
  },
  {
    id: 'E5',
    what: 'constructor escape through ctx: ctx.query.constructor("return process")()',
    name: 'ctx_escape',
    code: toolSource('ctx_escape', "return ctx.query.constructor('return process')().pid;"),
    testArgs: {},
    gate: 'runtime',
    says: "ReferenceError: 'process' is not defined",
  },
  {
    id: 'E6',
    what: 'globalThis probing: every global name is a language built-in or console',
    name: 'globals',
    code: toolSource(
      'globals',
      "const host = ['process', 'require', 'module', 'exports', 'Buffer', 'fetch', 'WebAssembly', 'setTimeout', 'setInterval', 'queueMicrotask', '__host', '__log', '__user', 'os', 'std', 'Atomics', 'global', 'navigator'].filter((k) => Object.getOwnPropertyNames(globalThis).includes(k) || typeof globalThis[k] !== 'undefined'); if (host.length) return host; throw new Error('nothing to reach');",
    ),
    testArgs: {},
    gate: 'runtime',
    says: 'run: nothing to reach',
  },
  {
    id: 'E7',
    what: 'WebAssembly instantiation',
    name: 'wasm',
    code: toolSource(
      'wasm',
      'return await WebAssembly.instantiate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));',
    ),
    testArgs: {},
    gate: 'runtime',
    says: "ReferenceError: 'WebAssembly' is not defined",
  },
  {
    id: 'E8',
    what: 'Atomics.wait to block the thread',
    name: 'atomics',
    code: toolSource(
      'atomics',
      'return Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1e9);',
    ),
    testArgs: {},
    gate: 'runtime',
    says: "ReferenceError: 'Atomics' is not defined",
  },
  {
    id: 'E9',
    what: 'deep recursion',
    name: 'recurses',
    code: toolSource('recurses', 'const f = (n) => f(n + 1) + 1; return f(0);'),
    testArgs: {},
    gate: 'runtime',
    says: /InternalError: stack overflow|crash: Maximum call stack size exceeded/,
  },
  {
    id: 'E10',
    what: 'a huge string',
    name: 'huge_string',
    code: toolSource('huge_string', "return 'x'.repeat(2 ** 27).length;"),
    testArgs: {},
    gate: 'runtime',
    says: 'memory: InternalError: out of memory',
  },
  {
    id: 'E11',
    what: 'a result over the report byte cap (10 MB: test/faults/generated-tool)',
    name: 'ten_mb',
    code: toolSource('ten_mb', "return 'x'.repeat(300 * 1024);"),
    testArgs: {},
    gate: 'runtime',
    says: 'over the 262144-character limit',
  },
  {
    id: 'E12',
    what: 'a pathological pattern in its own schema',
    name: 'redos_schema',
    code: "export default { name: 'redos_schema', description: 'x', schema: { type: 'object', properties: { s: { type: 'string', pattern: '^([a-z0-9]+)+$' } } }, async run() { return 1; } };",
    testArgs: { s: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!' },
    gate: 'runtime',
    says: '"pattern" at /properties/s is not allowed: regular expressions from a generated schema would run in the gateway',
  },
  {
    id: 'E13',
    what: 'a promise that never settles',
    name: 'never_settles',
    code: toolSource('never_settles', 'await new Promise(() => {});'),
    testArgs: {},
    gate: 'runtime',
    says: 'run() returned a promise that can never settle',
  },
  {
    id: 'E14',
    what: 'a name over 64 characters (providers refuse it)',
    name: `n${'x'.repeat(64)}`,
    code: toolSource(`n${'x'.repeat(64)}`, 'return 1;'),
    gate: 'static',
    says: 'name is 65 characters; a tool name may have at most 64',
  },
  {
    id: 'E15',
    what: 'a 300-character name (ENAMETOOLONG before v2)',
    name: `n${'x'.repeat(299)}`,
    code: toolSource('n', 'return 1;'),
    gate: 'static',
    says: 'name is 300 characters',
  },
  {
    id: 'E16',
    what: 'a description over 1,024 characters',
    name: 'long_description',
    code: `export default { name: 'long_description', description: '${'d'.repeat(1100)}', schema: { type: 'object' }, async run() { return 1; } };`,
    testArgs: {},
    gate: 'runtime',
    says: 'description is 1100 characters; the limit is 1024',
  },
  {
    id: 'E17',
    what: 'an input schema over 16 KB',
    name: 'big_schema',
    code: `export default { name: 'big_schema', description: 'x', schema: { type: 'object', description: '${'s'.repeat(17000)}' }, async run() { return 1; } };`,
    testArgs: {},
    gate: 'runtime',
    says: 'the limit is 16384',
  },
  {
    id: 'E18',
    what: 'more ctx.query calls than a run may make',
    name: 'query_flood',
    code: toolSource(
      'query_flood',
      "const all = []; for (let i = 0; i < 100; i++) all.push(ctx.query('SELECT 1 AS one').catch((e) => e.message)); return (await Promise.all(all)).filter((m) => typeof m === 'string' && m.includes('the limit per run')).length > 0 ? 'capped' : 'not capped';",
    ),
    testArgs: {},
    gate: 'runtime-ok',
    says: '"capped"',
  },
];

describe('meta_tool adversarial cases (e2e, real sandbox)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway({ META_TOOL_TIMEOUT_MS: '2000', META_TOOL_MEMORY_MB: '32' });
  });
  afterAll(() => gw.close());

  it.each(CASES.map((c) => [`${c.id} ${c.what}`, c]))(
    '%s: refused, no trace',
    async (_, c) => {
      const before = await sql<{
        v: string;
      }>`SELECT catalog_version AS v FROM gateway.tenants WHERE id = 'acme'`.execute(
        gw.database.handle.db,
      );
      const proposed = await propose(gw, {
        name: c.name,
        code: c.code,
        ...(c.testArgs ? { testArgs: c.testArgs } : {}),
      });
      let message: string;
      if (c.gate === 'runtime-ok') {
        const decision = await decide(gw, String(proposed.body.result?.proposal_id), 'approve');
        expect(decision.body).toMatchObject({ status: 'installed', smoke_preview: c.says });
        await gw.request(`/v1/admin/generated-tools/${c.name}`, { method: 'DELETE', as: reviewer });
        expect(filesOf(gw)).toEqual([]);
        return;
      }
      if (c.gate === 'static') {
        expect(proposed.body.is_error).toBe(true);
        expect(proposed.body.error?.code).toBe('REFUSED');
        message = proposed.body.error!.message;
        expect(message).toContain('Nothing was stored, imported, run or written');
      } else {
        expect(proposed.body.is_error).toBe(false);
        const decision = await decide(gw, String(proposed.body.result?.proposal_id), 'approve');
        expect(decision.body.status).toBe('failed');
        message = String(decision.body.message);
        expect(message).toContain(
          'Nothing was installed; the file set and the registry are unchanged',
        );
      }
      if (typeof c.says === 'string') expect(message).toContain(c.says);
      else expect(message).toMatch(c.says);
      expect(filesOf(gw)).toEqual([]);
      expect(await installedRows(gw)).toEqual([]);
      const after = await sql<{
        v: string;
      }>`SELECT catalog_version AS v FROM gateway.tenants WHERE id = 'acme'`.execute(
        gw.database.handle.db,
      );
      expect(after.rows[0].v).toBe(before.rows[0].v);
    },
    15_000,
  );

  it('the gateway survived every case, and nothing was written outside the sandbox', async () => {
    expect((await gw.request('/healthz')).status).toBe(200);
    expect((await gw.request('/readyz')).status).toBe(200);
    // it still lists and runs tools, a report and a built-in
    const listed = await gw.request('/v1/tools', { as: author });
    expect(listed.status).toBe(200);
    expect(await listed.text()).toContain('meta_tool');
    const ran = await gw.request('/v1/tools/query_report_sales_by_region/call', {
      method: 'POST',
      as: { tenant: 'acme', user: 'alice', roles: ['analyst'] },
      json: { arguments: { region: 'east' } },
    });
    expect(await ran.json()).toMatchObject({ is_error: false });
    // nothing written where a tool process could reach: its working directory, the project,
    // the tools directory (the tenant's and the root), the temp and home directories
    const places = [
      process.cwd(),
      path.resolve(__dirname, '../..'),
      gw.toolsDir,
      path.join(gw.toolsDir, 'acme'),
      os.tmpdir(),
      os.homedir(),
    ];
    for (const place of places) expect(existsSync(path.join(place, 'PWNED.txt'))).toBe(false);
    expect(filesOf(gw)).toEqual([]);
  });

  it('refuses a second proposal of a name while one is pending, even when both race', async () => {
    const code = toolSource('racer', 'return 1;');
    const results = await Promise.all([
      propose(gw, { name: 'racer', code }),
      propose(gw, { name: 'racer', code }),
    ]);
    const accepted = results.filter((r) => !r.body.is_error);
    const refused = results.filter((r) => r.body.is_error);
    expect(accepted).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0].body.error?.message).toContain(
      'a proposal named "racer" is already waiting for review',
    );
    await decide(gw, String(accepted[0].body.result?.proposal_id), 'reject');
  });

  it('gives a generated tool no environment at all: no secret of the gateway is reachable', async () => {
    const proposed = await propose(gw, {
      name: 'env_probe',
      code: toolSource(
        'env_probe',
        "return typeof process === 'undefined' ? 'no process' : Object.keys(process.env);",
      ),
      testArgs: {},
    });
    const decision = await decide(gw, String(proposed.body.result?.proposal_id), 'approve');
    expect(decision.body).toMatchObject({ status: 'installed', smoke_preview: '"no process"' });
  });
});

describe('meta_tool with META_TOOL_AUTO_APPROVE=1', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway({ META_TOOL_AUTO_APPROVE: '1', META_TOOL_TIMEOUT_MS: '3000' });
  });
  afterAll(() => gw.close());

  it('installs without a reviewer and records the setting as the approver', async () => {
    const proposed = await propose(gw, {
      name: 'auto_tool',
      code: toolSource('auto_tool', 'return 42;'),
      testArgs: {},
    });
    expect(proposed.body.is_error).toBe(false);
    expect(proposed.body.text).toContain('installed auto_tool');
    expect((await installedRows(gw))[0]).toMatchObject({
      name: 'auto_tool',
      approved_by: 'auto-approve (META_TOOL_AUTO_APPROVE=1)',
    });
  });

  it('ends two concurrent proposals of one name with one tool', async () => {
    const results = await Promise.all(
      [1, 2].map((v) =>
        propose(gw, { name: 'twin', code: toolSource('twin', `return ${v};`), testArgs: {} }),
      ),
    );
    // the serial queue runs them one after the other: the second replaces the first
    expect(results.every((r) => !r.body.is_error)).toBe(true);
    expect((await installedRows(gw)).filter((r) => r.name === 'twin')).toHaveLength(1);
    expect(filesOf(gw).filter((f) => f.startsWith('twin') || f.startsWith('.tmp-'))).toEqual([
      'twin.mjs',
    ]);
    // the file on disk is exactly the version recorded as installed
    const onDisk = readFileSync(path.join(gw.toolsDir, 'acme', 'twin.mjs'), 'utf8');
    const installed = (await installedRows(gw)).find((r) => r.name === 'twin');
    expect(createHash('sha256').update(onDisk).digest('hex')).toBe(installed?.sha256);
    // the author who proposed it is not the approver: the setting is
    expect((await installedRows(gw)).find((r) => r.name === 'twin')?.approved_by).not.toBe(
      author.user,
    );
  });
});
