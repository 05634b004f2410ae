import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { signingSecret } from '../../apps/gateway/src/auth/signing-key';
import { loadSettings } from '../../apps/gateway/src/config/gateway.config';
import { prepareDataDir } from '../../apps/gateway/src/database/open-database';
import { startupFailure } from '../../apps/gateway/src/start';

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
