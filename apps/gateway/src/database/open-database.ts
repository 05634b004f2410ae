import path from 'node:path';
import { connectPostgres, migrateToLatest, openPGlite, seedDemo } from '@app/db';
import type { DatabaseHandle } from '@app/db';
import { sql } from 'kysely';
import type { GatewaySettings } from '../config/gateway.config';

export interface OpenedDatabase {
  handle: DatabaseHandle;
  description: string;
}

/**
 * Postgres when DATABASE_URL is set; otherwise the embedded PGlite under DATA_DIR,
 * migrated and seeded with the demo catalog on its first start.
 */
export async function openDatabase(settings: GatewaySettings): Promise<OpenedDatabase> {
  if (settings.databaseUrl) {
    const handle = connectPostgres(settings.databaseUrl, settings.dbPoolSize);
    return { handle, description: `Postgres at ${redact(settings.databaseUrl)}` };
  }
  const dir = path.resolve(settings.dataDir, 'pglite');
  const handle = await openPGlite(dir);
  await migrateToLatest(handle.db);
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM gateway.tenants`.execute(
    handle.db,
  );
  const seeded = rows[0].n === 0;
  if (seeded) await seedDemo(handle.db);
  return {
    handle,
    description: `embedded PGlite at ${dir}${seeded ? ' (migrated and seeded with the demo catalog)' : ''}; set DATABASE_URL to use Postgres`,
  };
}

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
