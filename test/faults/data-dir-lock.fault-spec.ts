import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt, killRunning, MAIN, runBuilt } from '../support/built-gateway';
import { eventually } from '../support/eventually';
import { mintToken } from '../support/gateway';
import { PrivateRedis } from '../support/redis-server';

const SECRET = '0123456789abcdef0123456789abcdef0123';
const STACK = /\bat \S+ \(|\.js:\d+:\d+|node:internal/;

/**
 * Fault: a second `npm start` on the DATA_DIR of a running gateway (embedded PGlite, no
 * DATABASE_URL). It used to come up too; both took writes, and after a restart one's were gone.
 * Now it exits at once with one line naming the directory and the holder's pid, and the first
 * one's writes survive its restart; a gateway killed with SIGKILL leaves a lock the next start
 * takes over.
 */
describe('faults: one gateway per embedded data directory (built app)', () => {
  let cwd: string;
  beforeAll(() => ensureBuilt(), 300_000);
  beforeEach(async () => {
    cwd = await mkdtemp(path.join(os.tmpdir(), 'gw-lock-'));
  });
  afterEach(async () => {
    killRunning();
    await rm(cwd, { recursive: true, force: true });
  });

  const env = (port: number) => ({
    HOST: '127.0.0.1',
    PORT: String(port),
    AUTH_JWT_SECRET: SECRET,
  });
  const root = () => mintToken({ tenant: 'acme', user: 'root', roles: ['admin'], secret: SECRET });
  const REPORT = {
    name: 'Kept across restarts',
    description: 'A report written by the first gateway.',
    sql_template: 'SELECT o.region FROM orders o',
    category: 'sales',
    fields: [{ name: 'region', type: 'string' }],
  };
  const reportOf = async (port: number) =>
    fetch(`http://127.0.0.1:${port}/v1/admin/reports/kept_report`, {
      headers: { authorization: `Bearer ${await root()}` },
    });

  it('refuses a second gateway naming the directory and the holder, and keeps the first one’s writes', async () => {
    const [first, second] = [await PrivateRedis.freePort(), await PrivateRedis.freePort()];
    let refused: Awaited<ReturnType<typeof runBuilt>> | undefined;
    let pid = 0;
    const run = await runBuilt(cwd, env(first), async () => {
      const put = await fetch(`http://127.0.0.1:${first}/v1/admin/reports/kept_report`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${await root()}`, 'content-type': 'application/json' },
        body: JSON.stringify(REPORT),
      });
      expect(put.status).toBe(201);
      pid = Number(readFileSync(path.join(cwd, '.data', 'pglite.lock'), 'utf8').split(' ')[0]);
      refused = await runBuilt(cwd, env(second));
    });
    expect(run.code).toBe(0);
    expect(refused?.code).toBe(1);
    const lines = refused!.stderr.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`DATA_DIR ${path.join(cwd, '.data')} is in use by another gateway`);
    expect(lines[0]).toMatch(/\(pid \d+, lock .*pglite\.lock\)/);
    expect(pid).toBeGreaterThan(0);
    expect(lines[0]).toContain(`(pid ${pid}, lock`);
    expect(refused!.stderr).not.toMatch(STACK);
    // the first one released its lock on a clean exit
    expect(existsSync(path.join(cwd, '.data', 'pglite.lock'))).toBe(false);

    // restarted: what the first one saved is there
    const again = await runBuilt(cwd, env(first), async () => {
      const res = await reportOf(first);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { report: { name: string } }).report.name).toBe(REPORT.name);
    });
    expect(again.code).toBe(0);
  }, 180_000);

  it('takes over the lock of a gateway killed with SIGKILL', async () => {
    const port = await PrivateRedis.freePort();
    const child = spawn(process.execPath, [MAIN], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env(port) },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await eventually(
        async () => expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200),
        { timeoutMs: 90_000, intervalMs: 200 },
      );
    } finally {
      child.kill('SIGKILL');
    }
    await exited;
    expect(existsSync(path.join(cwd, '.data', 'pglite.lock'))).toBe(true);
    const run = await runBuilt(cwd, env(port), async () => {
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    });
    expect(run.stderr).not.toMatch(STACK);
    expect(run.code).toBe(0);
  }, 180_000);
});
