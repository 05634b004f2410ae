import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { eventually } from '../support/eventually';
import { TEST_JWT_SECRET } from '../support/gateway';
import { launchChromium, screenshot, signIn } from './browser';

const ROOT = path.resolve(__dirname, '../..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * The console on the embedded default, as `npm start` runs it: the built gateway in its own
 * process, no DATABASE_URL, PGlite migrated and seeded on first start under a fresh DATA_DIR.
 */
describe('admin console in Chromium (embedded PGlite, the built gateway)', () => {
  let child: ChildProcess;
  let baseUrl: string;
  let browser: Browser;
  let dataDir: string;
  let output = '';

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'gw-console-pglite-'));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      AUTH_JWT_SECRET: TEST_JWT_SECRET,
    };
    child = spawn(process.execPath, ['dist/apps/gateway/src/main.js'], { cwd: ROOT, env });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    browser = await launchChromium();
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`the gateway exited: ${output}`);
        const res = await fetch(`${baseUrl}/healthz`);
        if (!res.ok) throw new Error(`healthz ${res.status}`);
      },
      { timeoutMs: 110_000, intervalMs: 200 },
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${output}`);
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it('signs in and shows the seeded catalog, every report served', async () => {
    const { context, page, problems } = await signIn(browser, baseUrl, {
      tenant: 'acme',
      user: 'ada',
      roles: ['admin'],
    });
    try {
      await page.locator('tr[data-report="sales_by_region"]').waitFor();
      await page.locator('tr[data-report="low_stock"]').waitFor();
      expect(await page.locator('tr[data-report]').count()).toBe(11);
      expect(await page.locator('tr[data-report] .badge.bad').count()).toBe(0);
      expect(await page.getByTestId('who').innerText()).toMatch(/ada @ acme/);
      await screenshot(page, 'catalog-pglite.png');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
