import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { startGateway } from '../support/gateway';
import type { RunningGateway } from '../support/gateway';
import { author, decide, filesOf, installedRows, propose, toolSource } from '../support/meta-tool';

/**
 * Adversarial proposals. Each is refused at the gate named, and leaves no file, no installed
 * row and no registry change; escapes from the sandbox are stopped where they are tried.
 * The README's meta_tool table lists these cases.
 */
interface Case {
  id: string;
  what: string;
  name: string;
  code: string;
  testArgs?: Record<string, unknown>;
  /** 'static': refused by meta_tool itself; 'runtime': refused when approved */
  gate: 'static' | 'runtime';
  /** a fragment of the refusal message */
  says: string;
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
    what: 'smoke call never ends (timeout)',
    name: 'spins',
    code: toolSource('spins', 'for (;;) {}'),
    testArgs: {},
    gate: 'runtime',
    says: 'timeout: the tool did not finish within 2000 ms',
  },
  {
    id: 'R6',
    what: 'memory bomb',
    name: 'hog',
    code: toolSource('hog', 'const a = []; for (;;) a.push(new Array(1e6).fill(1));'),
    testArgs: {},
    gate: 'runtime',
    says: 'crash',
  },
  {
    id: 'R7',
    what: 'fs.writeFileSync into the project',
    name: 'writes',
    code: toolSource(
      'writes',
      "fs.writeFileSync(process.cwd() + '/PWNED.txt', 'x'); return 1;",
      "import fs from 'node:fs';",
    ),
    testArgs: {},
    gate: 'runtime',
    says: 'Access to this API has been restricted',
  },
  {
    id: 'R8',
    what: 'child_process.exec',
    name: 'spawns',
    code: toolSource(
      'spawns',
      "return await new Promise((res, rej) => cp.exec('id', (e, out) => (e ? rej(e) : res(out))));",
      "import cp from 'node:child_process';",
    ),
    testArgs: {},
    gate: 'runtime',
    says: 'Access to this API has been restricted',
  },
  {
    id: 'R9',
    what: 'a worker thread',
    name: 'worker',
    code: toolSource(
      'worker',
      "new Worker('1', { eval: true }); return 1;",
      "import { Worker } from 'node:worker_threads';",
    ),
    testArgs: {},
    gate: 'runtime',
    says: 'Access to this API has been restricted',
  },
  {
    id: 'R10',
    what: "reading the gateway's secret file",
    name: 'reads_secret',
    code: toolSource(
      'reads_secret',
      "return fs.readFileSync('.data/dev-jwt-secret', 'utf8');",
      "import fs from 'node:fs';",
    ),
    testArgs: {},
    gate: 'runtime',
    says: 'Access to this API has been restricted',
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
    what: 'a direct TCP connection to Postgres',
    name: 'raw_socket',
    code: toolSource(
      'raw_socket',
      "await new Promise((res, rej) => { const s = net.connect(5432, '127.0.0.1', res); s.on('error', rej); }); return 'connected';",
      "import net from 'node:net';",
    ),
    testArgs: {},
    gate: 'runtime',
    says: 'opening a network connection is not allowed',
  },
  {
    id: 'R14',
    what: 'fetch to the network',
    name: 'fetches',
    code: toolSource('fetches', "return await fetch('http://127.0.0.1:5432/');"),
    testArgs: {},
    gate: 'runtime',
    says: 'fetch is not allowed',
  },
  {
    id: 'R15',
    what: 'killing the gateway (process.kill(ppid))',
    name: 'killer',
    code: toolSource('killer', "process.kill(process.ppid, 'SIGKILL'); return 1;"),
    testArgs: {},
    gate: 'runtime',
    says: 'sending signals is not allowed',
  },
  {
    id: 'R16',
    what: 'importing code from a URL at run time',
    name: 'remote_import',
    code: toolSource('remote_import', "return await import('https://example.com/x.mjs');"),
    testArgs: {},
    gate: 'runtime',
    says: 'run:',
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
    says: 'the sandbox process ended early',
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
      expect(message).toContain(c.says);
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
    expect(existsSync(path.resolve(process.cwd(), 'PWNED.txt'))).toBe(false);
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

  it('gives a generated tool an empty environment: no secret of the gateway is visible', async () => {
    const proposed = await propose(gw, {
      name: 'env_probe',
      code: toolSource('env_probe', 'return Object.keys(process.env);'),
      testArgs: {},
    });
    const decision = await decide(gw, String(proposed.body.result?.proposal_id), 'approve');
    expect(decision.body).toMatchObject({ status: 'installed', smoke_preview: '[]' });
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
