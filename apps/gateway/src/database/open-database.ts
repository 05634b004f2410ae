import { access, constants, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { connectPostgres, countTenants, migrateToLatest, openPGlite, seedDemo } from '@app/db';
import type { DatabaseHandle } from '@app/db';
import { ConfigError } from '../config/gateway.config';
import { lockDataDir } from './data-dir-lock';
import type { DataDirLock } from './data-dir-lock';
import type { GatewaySettings } from '../config/gateway.config';
import type { DatabaseSettings } from '../config/namespaces';

export interface OpenedDatabase {
  handle: DatabaseHandle;
  description: string;
}

/**
 * Postgres when DATABASE_URL is set; otherwise the embedded PGlite under DATA_DIR,
 * migrated and seeded with the demo catalog on its first start.
 */
export async function openDatabase(settings: DatabaseSettings): Promise<OpenedDatabase> {
  if (settings.databaseUrl) {
    const handle = connectPostgres(settings.databaseUrl, settings.dbPoolSize);
    return { handle, description: `Postgres at ${withoutPassword(settings.databaseUrl)}` };
  }
  const dir = path.resolve(settings.dataDir, 'pglite');
  await writableDirectory(dir, 'DATA_DIR');
  const lock = lockDataDir(path.resolve(settings.dataDir), `${dir}.lock`);
  let handle: DatabaseHandle;
  try {
    handle = releasedOnClose(await openPGlite(dir), lock);
  } catch (err) {
    lock.release();
    throw err;
  }
  await migrateToLatest(handle.db);
  const seeded = (await countTenants(handle.db)) === 0;
  if (seeded) await seedDemo(handle.db);
  return {
    handle,
    description: `embedded PGlite at ${dir}${seeded ? ' (migrated and seeded with the demo catalog)' : ''}; set DATABASE_URL to use Postgres`,
  };
}

/** The handle whose close also gives up the data directory's lock. */
function releasedOnClose(handle: DatabaseHandle, lock: DataDirLock): DatabaseHandle {
  return {
    ...handle,
    async close() {
      try {
        await handle.close();
      } finally {
        lock.release();
      }
    },
  };
}

/**
 * DATA_DIR, created when missing (relative paths are from the working directory), whenever
 * something lives there: the embedded database, or the generated dev secret.
 */
export async function prepareDataDir(settings: GatewaySettings): Promise<void> {
  if (!settings.databaseUrl || !settings.auth.jwtSecret)
    await writableDirectory(path.resolve(settings.dataDir), 'DATA_DIR');
}

/**
 * Creates the missing directories of `dir` one level at a time. Node's `mkdir({ recursive })`
 * never returns when the file system answers ENOENT for a parent that exists (e.g. under
 * /proc), so it is not used: each level either exists, is made, or fails with its code.
 */
async function makeDirectories(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let at = dir; ; at = path.dirname(at)) {
    const found = await stat(at).then(
      (s) => s,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined;
        throw err;
      },
    );
    if (found) break;
    missing.unshift(at);
    if (path.dirname(at) === at) break;
  }
  for (const level of missing)
    await mkdir(level).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
}

/** Creates the directory (and its parents) and checks it is writable; a ConfigError if not. */
async function writableDirectory(dir: string, setting: string): Promise<void> {
  try {
    await makeDirectories(dir);
    await access(dir, constants.W_OK);
  } catch (err) {
    const code = (err as { code?: string }).code ?? (err instanceof Error ? err.message : '');
    throw new ConfigError(`${setting} ${dir} cannot be created or written (${code})`);
  }
}

/** A connection URL fit for a log line: the password replaced. */
export function withoutPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
