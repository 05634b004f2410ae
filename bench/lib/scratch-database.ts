import { connectPostgres } from '@app/db';
import type { DatabaseHandle } from '@app/db';
import pg from 'pg';
import { databaseUrl, ensureTemplate } from '../../test/support/template-database';

const SERVER = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * A migrated database of its own (a copy of the test template) for a one-off bench script:
 * `run` gets its URL and a handle of `poolSize` connections; the database is dropped after,
 * whatever `run` did.
 */
export async function withScratchDatabase(
  prefix: string,
  poolSize: number,
  run: (url: string, handle: DatabaseHandle) => Promise<void>,
): Promise<void> {
  const template = await ensureTemplate(SERVER);
  const name = `${prefix}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  const url = databaseUrl(SERVER, name);
  const handle = connectPostgres(url, poolSize);
  try {
    await run(url, handle);
  } finally {
    await handle.close();
    await admin.query(`DROP DATABASE "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

/** Runs a bench script's main, printing a failure and exiting 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
