import { randomBytes } from 'node:crypto';
import { connectPostgres } from '@app/db';
import type { DatabaseHandle } from '@app/db';
import pg from 'pg';
import { databaseUrl } from './template-database';

export interface TestDatabase {
  url: string;
  handle: DatabaseHandle;
  /** closes the handle and drops the database */
  drop(): Promise<void>;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh copy of the migrated, seeded template: each test file gets its own. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const template = process.env.GW_TEST_TEMPLATE;
  if (!template || !process.env.TEST_DATABASE_URL)
    throw new Error('test/global-setup.ts did not run');
  const name = `gw_test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
  const url = databaseUrl(process.env.TEST_DATABASE_URL, name);
  const handle = connectPostgres(url, 5);
  return {
    url,
    handle,
    async drop() {
      await handle.close();
      await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}
