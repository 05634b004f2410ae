import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { signingSecret } from '../../apps/gateway/src/auth/signing-key';
import { loadSettings } from '../../apps/gateway/src/config/gateway.config';
import { prepareDataDir } from '../../apps/gateway/src/database/open-database';
import { startupFailure } from '../../apps/gateway/src/start';
import { ensureBuilt, killRunning, runBuilt } from '../support/built-gateway';
import { PrivateRedis } from '../support/redis-server';
import { databaseUrl } from '../support/template-database';
import { createTestDatabase } from '../support/test-database';
import type { TestDatabase } from '../support/test-database';

const SECRET = '0123456789abcdef0123456789abcdef0123';

/**
 * Fault: a fresh clone, where DATA_DIR does not exist yet. Every combination of
 * AUTH_JWT_SECRET and DATA_DIR gets a writable data directory before anything opens it
 * (it used to exist only as a side effect of writing the dev secret).
 */
describe('faults: start-up with every DATA_DIR / AUTH_JWT_SECRET combination', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'gw-startup-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  const dirs = (): Array<[string, string]> => [
    ['absolute, missing and nested', path.join(root, 'a', 'b', 'c')],
    ['relative, missing', path.relative(process.cwd(), path.join(root, 'rel', 'data'))],
  ];

  it.each([
    ['set', SECRET],
    ['unset', ''],
  ])('AUTH_JWT_SECRET %s: each DATA_DIR form is created and usable', async (_name, secret) => {
    for (const [, dir] of dirs()) {
      const target = `${dir}-${secret ? 'secret' : 'dev'}`;
      const settings = loadSettings({ AUTH_JWT_SECRET: secret, DATA_DIR: target });
      await prepareDataDir(settings);
      expect((await stat(path.resolve(target))).isDirectory()).toBe(true);
      expect(signingSecret(settings).length).toBeGreaterThanOrEqual(32);
    }
  });

  it('DATA_DIR unset means .data under the working directory', () => {
    expect(path.resolve(loadSettings({ AUTH_JWT_SECRET: SECRET }).dataDir)).toBe(
      path.resolve('.data'),
    );
  });

  it('a DATA_DIR that cannot be created is one line naming the setting, without a stack', async () => {
    const file = path.join(root, 'a-file');
    await writeFile(file, 'x');
    const settings = loadSettings({ AUTH_JWT_SECRET: SECRET, DATA_DIR: path.join(file, 'sub') });
    let message = '';
    await prepareDataDir(settings).catch((err: unknown) => (message = startupFailure(err)));
    expect(message).toBe(
      `DATA_DIR ${path.join(file, 'sub')} cannot be created or written (ENOTDIR)`,
    );
  });

  it('a DATA_DIR under a file system that refuses directories (/proc) is one line, not a hang', async () => {
    // Node's recursive mkdir loops forever here; the gateway must still answer with the cause
    const settings = loadSettings({ AUTH_JWT_SECRET: '', DATA_DIR: '/proc/no-such-data-dir' });
    const failure = await prepareDataDir(settings).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(startupFailure(failure)).toBe(
      'DATA_DIR /proc/no-such-data-dir cannot be created or written (ENOENT)',
    );
  });

  it('any start-up error is one line: a database error keeps its code, a stack never shows', () => {
    const err = Object.assign(
      new Error('database "x" does not exist\n    at Parser.parse (x.js:1:1)'),
      {
        code: '3D000',
      },
    );
    const line = startupFailure(err);
    expect(line).toBe('3D000: database "x" does not exist');
  });
});

const STACK = /\bat \S+ \(|\.js:\d+:\d+|node:internal/;

/**
 * The same, end to end: the built app (`node dist/apps/gateway/src/main.js`, what `npm start`
 * runs) started in a fresh directory, as after a clone. It starts with each combination, or
 * fails with one line on stderr and exit code 1.
 */
describe('faults: start-up of the built app', () => {
  let cwd: string;
  let database: TestDatabase;

  beforeAll(async () => {
    ensureBuilt();
    database = await createTestDatabase();
  }, 300_000);
  afterAll(() => database.drop());
  beforeEach(async () => {
    cwd = await mkdtemp(path.join(os.tmpdir(), 'gw-clone-'));
  });
  afterEach(async () => {
    killRunning();
    await rm(cwd, { recursive: true, force: true });
  });

  /** Starts it, checks it answers health and readiness, stops it; returns the run. */
  async function startsAndServes(env: Record<string, string>) {
    const port = await PrivateRedis.freePort();
    const run = await runBuilt(cwd, { HOST: '127.0.0.1', PORT: String(port), ...env }, async () => {
      for (const probe of ['/healthz', '/readyz'])
        expect((await fetch(`http://127.0.0.1:${port}${probe}`)).status).toBe(200);
    });
    expect(run.stderr).not.toMatch(STACK);
    expect(run.code).toBe(0);
    return run;
  }

  it.each<[string, () => Record<string, string>, (dir: string) => string | undefined]>([
    [
      'the embedded database, AUTH_JWT_SECRET set, DATA_DIR unset (the reported crash)',
      () => ({ AUTH_JWT_SECRET: SECRET }),
      (dir) => path.join(dir, '.data', 'pglite'),
    ],
    [
      'Postgres, AUTH_JWT_SECRET unset, DATA_DIR relative and missing, nested',
      () => ({ DATABASE_URL: database.url, DATA_DIR: 'state/a/b' }),
      (dir) => path.join(dir, 'state', 'a', 'b'),
    ],
    [
      'Postgres, AUTH_JWT_SECRET set, DATA_DIR absolute and missing, nested',
      () => ({ DATABASE_URL: database.url, AUTH_JWT_SECRET: SECRET, DATA_DIR: '<cwd>/abs/x/y' }),
      // nothing needs it at start-up (no embedded database, no dev secret): it is not made
      () => undefined,
    ],
  ])(
    '%s: starts, serves and stops cleanly',
    async (_name, env, dataDir) => {
      const settings = env();
      if (settings.DATA_DIR) settings.DATA_DIR = settings.DATA_DIR.replace('<cwd>', cwd);
      await startsAndServes(settings);
      const made = dataDir(cwd);
      if (made !== undefined) expect(existsSync(made)).toBe(true);
    },
    120_000,
  );

  it.each<[string, (dir: string) => Promise<Record<string, string>>, RegExp]>([
    [
      'DATA_DIR under a file',
      async (dir) => {
        await writeFile(path.join(dir, 'a-file'), 'x');
        return { AUTH_JWT_SECRET: SECRET, DATA_DIR: path.join(dir, 'a-file', 'sub') };
      },
      /^gateway failed to start: DATA_DIR .*a-file\/sub cannot be created or written \(ENOTDIR\)$/,
    ],
    [
      'a database that does not exist',
      async () => ({
        AUTH_JWT_SECRET: SECRET,
        DATABASE_URL: databaseUrl(process.env.TEST_DATABASE_URL!, 'gw_no_such_database'),
      }),
      /^gateway failed to start: 3D000: database "gw_no_such_database" does not exist$/,
    ],
  ])(
    '%s: one line on stderr naming the cause, exit code 1, no stack',
    async (_name, env, line) => {
      const port = await PrivateRedis.freePort();
      const run = await runBuilt(cwd, {
        HOST: '127.0.0.1',
        PORT: String(port),
        ...(await env(cwd)),
      });
      expect(run.code).toBe(1);
      const lines = run.stderr.split('\n').filter((l) => l.trim() !== '');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(line);
      expect(run.stdout + run.stderr).not.toMatch(STACK);
    },
    120_000,
  );
});
