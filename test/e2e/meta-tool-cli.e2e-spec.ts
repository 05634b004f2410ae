import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import { startGateway } from '../support/gateway';
import type { RunningGateway } from '../support/gateway';
import { installedRows, propose, toolSource } from '../support/meta-tool';

const ROOT = path.resolve(__dirname, '../..');
// what `npm run meta-tool` runs: the built CLI (Nest's DI needs tsc's decorator metadata)
const CLI = 'dist/apps/gateway/src/cli/meta-tool.js';

interface Run {
  code: number | null;
  out: string;
}

/** Runs the review CLI; with `tty`, under script(1) so it has a real terminal to ask on. */
function review(
  gw: RunningGateway,
  options: { tty: boolean; input?: string; env?: Record<string, string> },
): Promise<Run> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    DATABASE_URL: gw.database.url,
    GENERATED_TOOLS_DIR: gw.toolsDir,
    ...options.env,
  };
  const command = `${process.execPath} ${CLI} review --tenant acme --reviewer rex`;
  const child = options.tty
    ? spawn('script', ['-qec', command, '/dev/null'], { cwd: ROOT, env })
    : spawn(process.execPath, [CLI, 'review', '--tenant', 'acme', '--reviewer', 'rex'], {
        cwd: ROOT,
        env,
      });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  // answer each y/N prompt as it appears, in order
  const answers = (options.input ?? '').split('\n').filter(Boolean);
  let given = 0;
  child.stdout.on('data', () => {
    const asked = (out.match(/\[y\/N/g) ?? []).length;
    while (given < asked && given < answers.length) child.stdin.write(`${answers[given++]}\n`);
  });
  if (!options.tty) child.stdin.end();
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

async function statusOf(gw: RunningGateway, name: string): Promise<string | undefined> {
  const { rows } = await sql<{
    status: string;
  }>`SELECT status FROM gateway.tool_proposals WHERE tenant_id = 'acme' AND name = ${name} ORDER BY created_at DESC LIMIT 1`.execute(
    gw.database.handle.db,
  );
  return rows[0]?.status;
}

describe('npm run meta-tool -- review (the human gate in a terminal)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    // what `npm run meta-tool` does first: build when dist is missing or older than the sources
    execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-if-needed.js')], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    gw = await startGateway();
    await propose(gw, {
      name: 'cli_yes',
      code: toolSource('cli_yes', "return 'yes';"),
      testArgs: {},
    });
    await propose(gw, { name: 'cli_no', code: toolSource('cli_no', "return 'no';"), testArgs: {} });
  }, 300_000);
  afterAll(() => gw.close());

  it('refuses without a terminal and without META_TOOL_AUTO_APPROVE=1, and changes nothing', async () => {
    const run = await review(gw, { tty: false });
    expect(run.code).toBe(1);
    expect(run.out).toContain(
      'refusing: there is no terminal to ask and META_TOOL_AUTO_APPROVE is not 1; nothing was imported, run or written',
    );
    expect(await statusOf(gw, 'cli_yes')).toBe('pending');
    expect(await installedRows(gw)).toEqual([]);
  }, 30_000);

  it('prints each proposal in full and asks y/N in a terminal: y installs, n rejects', async () => {
    const run = await review(gw, { tty: true, input: 'y\nn\n' });
    expect(run.out).toContain("return 'yes';");
    expect(run.out).toContain('test args: {}');
    expect(run.out).toContain('installed cli_yes');
    expect(run.out).toContain('rejected (declined in the terminal)');
    expect(await statusOf(gw, 'cli_yes')).toBe('installed');
    expect(await statusOf(gw, 'cli_no')).toBe('rejected');
    expect((await installedRows(gw)).map((r) => [r.name, r.approved_by])).toEqual([
      ['cli_yes', 'rex'],
    ]);
  }, 60_000);

  it('approves without a terminal only with META_TOOL_AUTO_APPROVE=1, recorded as the approver', async () => {
    await propose(gw, {
      name: 'cli_auto',
      code: toolSource('cli_auto', "return 'auto';"),
      testArgs: {},
    });
    const run = await review(gw, { tty: false, env: { META_TOOL_AUTO_APPROVE: '1' } });
    expect(run.code).toBe(0);
    expect(run.out).toContain('auto-approving cli_auto because META_TOOL_AUTO_APPROVE=1');
    expect((await installedRows(gw)).find((r) => r.name === 'cli_auto')?.approved_by).toBe(
      'auto-approve (META_TOOL_AUTO_APPROVE=1)',
    );
  }, 60_000);
});
