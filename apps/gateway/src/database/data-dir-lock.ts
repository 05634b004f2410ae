import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';

/**
 * One writer per embedded data directory. PGlite keeps the whole database in one process's
 * memory and writes it back to its directory; a second process on the same directory would run
 * a second, diverging copy, and whichever wrote last would silently erase the other's writes.
 * So the directory is claimed with a lock file before PGlite opens it, held for the process's
 * life and removed on exit (a SIGKILL leaves it behind: the next start sees its process is
 * gone and takes it over).
 *
 * The file holds `<pid> <hostname>`. A lock from another host (a shared volume) cannot be
 * checked for liveness from here, so it is honoured until an operator removes it. Taking over a
 * stale lock (read, judged, removed) is not atomic: two processes starting in the same
 * millisecond after a crash could both pass; the lock guards against the mistake the issue saw
 * (a second `npm start` on a running one), as Postgres's own postmaster.pid does.
 */
export class DataDirLockedError extends Error {
  readonly code = 'DATA_DIR_LOCKED';
  constructor(
    readonly directory: string,
    readonly holder: LockHolder,
    readonly lockFile: string,
  ) {
    super(
      `DATA_DIR ${directory} is in use by another gateway (${
        holder.pid > 0 ? `pid ${holder.pid}` : 'unreadable lock'
      }${holder.host === os.hostname() ? '' : ` on host ${holder.host}`}, lock ${lockFile}): one process per embedded database; stop that one, use another DATA_DIR, or set DATABASE_URL to share a Postgres`,
    );
  }
}

export interface LockHolder {
  pid: number;
  host: string;
}

export interface DataDirLock {
  readonly file: string;
  release(): void;
}

/** Whether a process with this pid runs on this machine (EPERM: it does, as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(file: string): LockHolder | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const [pid, host = ''] = text.trim().split(/\s+/);
  // written whole before it is linked into place, so anything else is not ours to judge
  return /^\d+$/.test(pid) ? { pid: Number(pid), host } : { pid: -1, host };
}

/** Lock files this process holds: a second open in the same process is refused too. */
const heldHere = new Set<string>();

/**
 * Stale: written on this host by a process that is gone, or by this very pid in an earlier life
 * (a container restart reuses pids) when this process does not hold it.
 */
function stale(holder: LockHolder, file: string): boolean {
  if (holder.host !== os.hostname() || holder.pid <= 0) return false;
  if (holder.pid === process.pid) return !heldHere.has(file);
  return !processAlive(holder.pid);
}

/**
 * Claims `directory` through `lockFile` (created exclusively), or throws DataDirLockedError
 * naming the live holder. A stale lock is removed and the claim retried once: if another
 * process claimed it in between, that one wins and this one is refused.
 */
export function lockDataDir(directory: string, lockFile: string): DataDirLock {
  // written in full first, then linked into place (link fails when the name exists): a reader
  // never sees a half-written lock
  const draft = `${lockFile}.${process.pid}.${Date.now()}`;
  writeFileSync(draft, `${process.pid} ${os.hostname()}\n`, { mode: 0o644 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(draft, lockFile);
        return held(lockFile);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = readHolder(lockFile);
      if (attempt === 0 && (holder === undefined || stale(holder, lockFile))) {
        if (holder) unlinkSync(lockFile);
        continue;
      }
      throw new DataDirLockedError(directory, holder ?? { pid: -1, host: '?' }, lockFile);
    }
  } finally {
    unlinkSync(draft);
  }
}

function held(file: string): DataDirLock {
  heldHere.add(file);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    heldHere.delete(file);
    process.removeListener('exit', release);
    // only our own lock: never one a later process took over
    if (readHolder(file)?.pid === process.pid) unlinkSync(file);
  };
  process.on('exit', release);
  return { file, release };
}
