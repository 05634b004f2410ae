import { spawn } from 'node:child_process';
import pg from 'pg';
import type { Cleanup } from './cleanup';
import { log } from './log';
import { pgUrl, ROOT, TSX_BIN } from './settings';

/** Runs `fn` with one connection to `database`, closed afterwards. */
export async function withClient<T>(
  database: string,
  fn: (c: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: pgUrl(database) });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function ident(name: string): string {
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`bad identifier ${name}`);
  return `"${name}"`;
}

export async function dropDatabase(name: string): Promise<void> {
  await withClient('postgres', (c) =>
    c.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`),
  );
}

/** Creates the database and registers its drop (WITH (FORCE)) with the cleanup. */
export async function createDatabase(
  cleanup: Cleanup,
  name: string,
  template?: string,
): Promise<void> {
  const from = template ? ` TEMPLATE ${ident(template)}` : '';
  cleanup.add(`drop database ${name}`, () => dropDatabase(name));
  await withClient('postgres', (c) => c.query(`CREATE DATABASE ${ident(name)}${from}`));
}

/** A new database, migrated and seeded with the demo tenants by the app's own CLI. */
export async function createSeededDatabase(cleanup: Cleanup, name: string): Promise<void> {
  await createDatabase(cleanup, name);
  const started = Date.now();
  cleanup.ensureOpen();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(TSX_BIN, ['apps/gateway/src/cli/db.ts', 'seed'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: pgUrl(name), NODE_ENV: 'development' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const undo = cleanup.add(`seed process ${child.pid}`, () => {
      child.kill('SIGKILL');
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      void undo();
      if (code === 0) resolve();
      else reject(new Error(`seeding ${name} failed (exit ${code}): ${output.slice(-2000)}`));
    });
  });
  log(`seeded ${name} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Roles are cluster-wide: the bench drops the ones its synthetic tenants created. */
export function dropRolesLater(cleanup: Cleanup, roles: () => string[]): void {
  cleanup.add('drop synthetic reader roles', async () => {
    const names = roles();
    if (names.length === 0) return;
    await withClient('postgres', async (c) => {
      for (const role of names) await c.query(`DROP ROLE IF EXISTS ${ident(role)}`);
    });
  });
}

/**
 * The last step of every cleanup: whatever this run created and an interrupted step may
 * have missed (a CREATE DATABASE in flight when Ctrl-C came), found by the run's names.
 */
export async function sweepRun(runId: string): Promise<void> {
  await withClient('postgres', async (c) => {
    const dbs = await c.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1',
      [`gw\\_bench\\_${runId}%`],
    );
    for (const { datname } of dbs.rows)
      await c.query(`DROP DATABASE IF EXISTS ${ident(datname)} WITH (FORCE)`);
    const roles = await c.query<{ rolname: string }>(
      'SELECT rolname FROM pg_roles WHERE rolname LIKE $1',
      [`gw\\_reader\\_bs${runId}\\_%`],
    );
    for (const { rolname } of roles.rows) await c.query(`DROP ROLE IF EXISTS ${ident(rolname)}`);
  });
}

/** The server's version string, for the report. */
export function postgresVersion(): Promise<string> {
  return withClient('postgres', async (c) => {
    const { rows } = await c.query<{ server_version: string }>('SHOW server_version');
    return rows[0].server_version;
  });
}
