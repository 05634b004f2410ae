import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DataDirLockedError, lockDataDir } from './data-dir-lock';

/** The lock file on a real file system, against real processes (alive, dead, elsewhere). */
describe('one writer per embedded data directory (lock file)', () => {
  let dir: string;
  let lockFile: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gw-lock-'));
    lockFile = path.join(dir, 'pglite.lock');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const refusal = (fn: () => unknown): DataDirLockedError => {
    try {
      fn();
    } catch (err) {
      if (err instanceof DataDirLockedError) return err;
      throw err;
    }
    throw new Error('the lock was granted');
  };

  it('holds the pid and host, refuses a second claim naming both, and is gone once released', async () => {
    const lock = lockDataDir(dir, lockFile);
    expect(readFileSync(lockFile, 'utf8')).toBe(`${process.pid} ${os.hostname()}\n`);
    const err = refusal(() => lockDataDir(dir, lockFile));
    expect(err.code).toBe('DATA_DIR_LOCKED');
    expect(err.message).toContain(
      `DATA_DIR ${dir} is in use by another gateway (pid ${process.pid}`,
    );
    expect(err.message).toContain(lockFile);
    lock.release();
    expect(existsSync(lockFile)).toBe(false);
    // no draft files left behind either
    expect(await readdir(dir)).toEqual([]);
    lockDataDir(dir, lockFile).release();
  });

  it('refuses while another live process holds it', async () => {
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      writeFileSync(lockFile, `${holder.pid} ${os.hostname()}\n`);
      expect(refusal(() => lockDataDir(dir, lockFile)).holder.pid).toBe(holder.pid);
      expect(readFileSync(lockFile, 'utf8')).toBe(`${holder.pid} ${os.hostname()}\n`);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('takes over a stale lock whose process is gone', () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const deadPid = Number(gone.stdout.toString());
    writeFileSync(lockFile, `${deadPid} ${os.hostname()}\n`);
    const lock = lockDataDir(dir, lockFile);
    expect(readFileSync(lockFile, 'utf8')).toBe(`${process.pid} ${os.hostname()}\n`);
    lock.release();
  });

  it('honours a lock written on another host (its process cannot be checked from here)', () => {
    writeFileSync(lockFile, `4242 other-host\n`);
    const err = refusal(() => lockDataDir(dir, lockFile));
    expect(err.message).toContain('(pid 4242 on host other-host');
  });

  it('release leaves alone a lock another process has taken since', () => {
    const lock = lockDataDir(dir, lockFile);
    writeFileSync(lockFile, `4242 other-host\n`);
    lock.release();
    expect(readFileSync(lockFile, 'utf8')).toBe('4242 other-host\n');
  });
});
