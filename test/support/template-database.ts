import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { connectPostgres, migrateToLatest, seedDemo } from '../../db';
import pg from 'pg';

/** Name of the migrated + seeded template database for the current contents of db/. */
export function templateName(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.ts')) hash.update(name).update(readFileSync(full));
    }
  };
  walk(path.resolve(__dirname, '../../db'));
  return `gw_template_${hash.digest('hex').slice(0, 12)}`;
}

export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * Migrates and seeds the template once per db/ change. An advisory lock keeps two test runs
 * on one server from building it at the same time; a comment marks it complete.
 */
export async function ensureTemplate(serverUrl: string): Promise<string> {
  const name = templateName();
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    const existing = await admin.query<{ ready: string | null }>(
      'SELECT shobj_description(oid, $2) AS ready FROM pg_database WHERE datname = $1',
      [name, 'pg_database'],
    );
    if (existing.rows[0]?.ready === 'ready') return name;
    if (existing.rowCount) await admin.query(`DROP DATABASE "${name}"`);
    await admin.query(`CREATE DATABASE "${name}"`);
    const handle = connectPostgres(databaseUrl(serverUrl, name), 2);
    try {
      await migrateToLatest(handle.db);
      await seedDemo(handle.db);
    } finally {
      await handle.close();
    }
    await admin.query(`COMMENT ON DATABASE "${name}" IS 'ready'`);
    return name;
  } finally {
    await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [name]).catch(() => undefined);
    await admin.end();
  }
}

/** The advisory lock key every run holds (shared) while it uses the template `name`. */
function usersKey(name: string): string {
  return `${name}:in-use`;
}

/**
 * Marks the template as in use by this run until `release` (or until the run's process ends,
 * which closes the connection): another run's cleanup will not drop it meanwhile.
 */
export async function holdTemplate(serverUrl: string, name: string): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query('SELECT pg_advisory_lock_shared(hashtext($1))', [usersKey(name)]);
  return async () => {
    await client.end().catch(() => undefined);
  };
}

/**
 * The run's cleanup: drops the template when no other run holds it (and every template of an
 * older db/ tree), so `npm test` leaves no database of its own behind. A template in use by
 * a run still going is left to that run's cleanup.
 */
export async function dropUnusedTemplates(serverUrl: string): Promise<string[]> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const dropped: string[] = [];
  try {
    const { rows } = await admin.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'gw\\_template\\_%'",
    );
    for (const { datname } of rows) {
      const { rows: got } = await admin.query<{ free: boolean }>(
        'SELECT pg_try_advisory_lock(hashtext($1)) AS free',
        [usersKey(datname)],
      );
      if (!got[0].free) continue;
      try {
        // the build lock too: no run is building or cloning it right now
        await admin.query('SELECT pg_advisory_lock(hashtext($1))', [datname]);
        await admin.query(`DROP DATABASE IF EXISTS "${datname}"`);
        dropped.push(datname);
      } catch {
        // a clone in progress holds a connection to it: that run drops it at its end
      } finally {
        await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [datname]);
        await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [usersKey(datname)]);
      }
    }
  } finally {
    await admin.end();
  }
  return dropped;
}
