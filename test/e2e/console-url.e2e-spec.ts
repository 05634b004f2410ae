import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import { startGateway, TEST_JWT_SECRET } from '../support/gateway';
import type { RunningGateway } from '../support/gateway';

const ROOT = path.resolve(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const CLI = 'apps/gateway/src/cli/console-url.ts';
const run = promisify(execFile);

function consoleUrl(args: string[], env: Record<string, string> = {}) {
  return run(TSX, [CLI, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', AUTH_JWT_SECRET: TEST_JWT_SECRET, ...env },
  });
}

describe('npm run console-url (e2e)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  it('prints the console address with a token in the fragment that the gateway accepts', async () => {
    const { stdout } = await consoleUrl([
      '--tenant',
      'acme',
      '--user',
      'ada',
      '--roles',
      'admin,tool_reviewer',
      '--base',
      gw.baseUrl,
    ]);
    const url = new URL(stdout.trim());
    expect(`${url.origin}${url.pathname}`).toBe(`${gw.baseUrl}/console/`);
    expect(url.search).toBe(''); // nothing in what a browser sends
    const token = /^#token=(.+)$/.exec(url.hash)?.[1];
    // the token speaks for whom the flags said
    expect(decodeJwt(token ?? '')).toMatchObject({
      tenant: 'acme',
      sub: 'ada',
      roles: ['admin', 'tool_reviewer'],
    });
    const catalog = await fetch(`${gw.baseUrl}/v1/admin/console/catalog`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(catalog.status).toBe(200);
    const review = await fetch(`${gw.baseUrl}/v1/admin/meta-tool/review`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(review.status).toBe(200);
  });

  it('defaults to HOST:PORT and refuses a call without tenant or user', async () => {
    const { stdout } = await consoleUrl(['--tenant', 'acme', '--user', 'ada'], { PORT: '4321' });
    expect(stdout).toMatch(/^http:\/\/127\.0\.0\.1:4321\/console\/#token=ey/);
    await expect(consoleUrl(['--tenant', 'acme'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('usage: console-url'),
    });
  });
});
