import Redis from 'ioredis';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '@app/db';
import { listedTools } from '../support/containment';
import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { createTestDatabase } from '../support/test-database';

const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const phoenixAdmin: TokenClaims = { tenant: 'phoenix', user: 'root', roles: ['admin'] };

const uniquePrefix = () => `faults-keys-${Date.now()}-${Math.random().toString(16).slice(2, 8)}`;

async function addReport(db: Kysely<DB>, tenant: string, id: string): Promise<void> {
  await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
    VALUES (${tenant}, ${id}, ${id}, 'A report of one life only.', 'SELECT count(*) AS n FROM orders', 'sales')`.execute(
    db,
  );
}

/** A tenant made by plain SQL, as an operator would: the same statements give the same versions. */
async function createPhoenix(db: Kysely<DB>, report: string): Promise<void> {
  await sql`INSERT INTO gateway.tenants (id, name) VALUES ('phoenix', 'Phoenix')`.execute(db);
  await sql`INSERT INTO gateway.datasources (tenant_id, data_schema, allowed_tables)
    VALUES ('phoenix', 'tenant_acme', '{orders}')`.execute(db);
  await sql`INSERT INTO gateway.roles (tenant_id, name, is_admin) VALUES ('phoenix', 'admin', true)`.execute(
    db,
  );
  await addReport(db, 'phoenix', report);
}

/** Lists, then waits until L2 holds that tenant's list (the write is not awaited by the request). */
async function l2Filled(gw: RunningGateway, who: TokenClaims, prefix: string): Promise<string[]> {
  const names = await listedTools(gw, who);
  const redis = new Redis(process.env.TEST_REDIS_URL!);
  try {
    await eventually(async () => {
      expect(await redis.keys(`${prefix}:list:*${who.tenant}*`)).not.toHaveLength(0);
    });
  } finally {
    redis.disconnect();
  }
  return names;
}

/**
 * Fault: Redis outlives what it cached. Catalog versions start again at 1 in a recreated
 * database or a re-created tenant, so keys of the form `catalog:<tenant>:v<n>` collide with
 * the previous life's. Every L2 key now carries the database identity and tenant incarnation.
 */
describe('faults: Redis kept the catalog of a previous life', () => {
  it('a tenant deleted and created again is never served its previous incarnation from Redis', async () => {
    const database = await createTestDatabase();
    const env = { REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_KEY_PREFIX: uniquePrefix() };
    try {
      await createPhoenix(database.handle.db, 'first_life_only');
      const first = await startGateway(env, database);
      try {
        expect(await l2Filled(first, phoenixAdmin, env.REDIS_KEY_PREFIX)).toContain(
          'query_report_first_life_only',
        );
      } finally {
        await first.close();
      }
      await sql`DELETE FROM gateway.tenants WHERE id = 'phoenix'`.execute(database.handle.db);
      await createPhoenix(database.handle.db, 'second_life_only');

      const second = await startGateway(env, database);
      try {
        const names = await listedTools(second, phoenixAdmin);
        expect(names).toContain('query_report_second_life_only');
        expect(names).not.toContain('query_report_first_life_only');
      } finally {
        await second.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('a gateway on a recreated (or restored) metadata database is never served the old database from Redis', async () => {
    const env = { REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_KEY_PREFIX: uniquePrefix() };
    const oldDb = await createTestDatabase();
    const newDb = await createTestDatabase();
    try {
      // the same change in both databases claims the same catalog version
      await addReport(oldDb.handle.db, 'acme', 'only_in_old_database');
      await addReport(newDb.handle.db, 'acme', 'only_in_new_database');
      const before = await startGateway(env, oldDb);
      try {
        expect(await l2Filled(before, root, env.REDIS_KEY_PREFIX)).toContain(
          'query_report_only_in_old_database',
        );
      } finally {
        await before.close();
      }
      const after = await startGateway(env, newDb);
      try {
        const names = await listedTools(after, root);
        expect(names).toContain('query_report_only_in_new_database');
        expect(names).not.toContain('query_report_only_in_old_database');
      } finally {
        await after.close();
      }
    } finally {
      await oldDb.drop();
      await newDb.drop();
    }
  });
});
