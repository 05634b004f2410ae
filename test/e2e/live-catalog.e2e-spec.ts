import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { createTestDatabase } from '../support/test-database';
import type { TestDatabase } from '../support/test-database';

const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const gina: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };

/** Runs a .sql file the way psql -f would: as one script on its own connection. */
async function psqlFile(url: string, file: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(readFileSync(path.resolve(__dirname, '../../db/examples', file), 'utf8'));
  } finally {
    await client.end();
  }
}

describe('live catalog across two instances (e2e, real Postgres + Redis)', () => {
  let db: TestDatabase;
  let a: RunningGateway;
  let b: RunningGateway;

  beforeAll(async () => {
    db = await createTestDatabase();
    const env = {
      REDIS_URL: process.env.TEST_REDIS_URL!,
      REDIS_KEY_PREFIX: `test-${path.basename(db.url)}`,
    };
    a = await startGateway(env, db);
    b = await startGateway(env, db);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await db.drop();
  });

  async function tools(
    gw: RunningGateway,
    who: TokenClaims = alice,
  ): Promise<
    Array<{ function: { name: string; parameters: { properties: Record<string, unknown> } } }>
  > {
    const res = await gw.request('/v1/tools', { as: who });
    return (
      (await res.json()) as {
        tools: Array<{
          function: { name: string; parameters: { properties: Record<string, unknown> } };
        }>;
      }
    ).tools;
  }
  const names = async (gw: RunningGateway, who?: TokenClaims) =>
    (await tools(gw, who)).map((t) => t.function.name);

  it('serves a report inserted by plain SQL on both instances, and removes it from both', async () => {
    // warm both caches first, so what follows is invalidation, not a cold start
    expect(await names(a)).not.toContain('query_report_onboarding_demo');
    expect(await names(b)).not.toContain('query_report_onboarding_demo');
    await psqlFile(db.url, 'onboard_report.sql');
    for (const gw of [a, b])
      await eventually(async () =>
        expect(await names(gw)).toContain('query_report_onboarding_demo'),
      );
    const call = await a.request('/v1/tools/query_report_onboarding_demo/call', {
      method: 'POST',
      as: alice,
      json: { arguments: { region: 'east' } },
    });
    expect(((await call.json()) as { is_error: boolean }).is_error).toBe(false);
    const salesContext = (await (
      await b.request('/v1/tools?context=SALES', { as: alice })
    ).json()) as { tools: Array<{ function: { name: string } }> };
    expect(salesContext.tools.map((t) => t.function.name)).toContain(
      'query_report_onboarding_demo',
    );
    // another tenant never sees it
    expect(await names(b, gina)).not.toContain('query_report_onboarding_demo');
    await psqlFile(db.url, 'remove_report.sql');
    for (const gw of [a, b])
      await eventually(async () =>
        expect(await names(gw)).not.toContain('query_report_onboarding_demo'),
      );
  });

  it('drops a disabled report on both instances', async () => {
    expect(await names(b)).toContain('query_report_top_customers');
    await sql`UPDATE gateway.reports SET status = 'disabled' WHERE tenant_id = 'acme' AND id = 'top_customers'`.execute(
      db.handle.db,
    );
    for (const gw of [a, b])
      await eventually(async () =>
        expect(await names(gw)).not.toContain('query_report_top_customers'),
      );
    await sql`UPDATE gateway.reports SET status = 'active' WHERE tenant_id = 'acme' AND id = 'top_customers'`.execute(
      db.handle.db,
    );
    for (const gw of [a, b])
      await eventually(async () => expect(await names(gw)).toContain('query_report_top_customers'));
  });

  it('serves the new schema on both instances after a filter changes', async () => {
    const schemaOf = async (gw: RunningGateway) =>
      (await tools(gw)).find((t) => t.function.name === 'query_report_customers_by_segment')
        ?.function.parameters.properties;
    expect(Object.keys((await schemaOf(a)) ?? {})).toEqual(['segment', 'page', 'page_size']);
    await sql`UPDATE gateway.report_filters SET name = 'customer_segment' WHERE tenant_id = 'acme' AND report_id = 'customers_by_segment' AND name = 'segment'`.execute(
      db.handle.db,
    );
    await sql`UPDATE gateway.reports SET sql_template = replace(sql_template, ':segment', ':customer_segment') WHERE tenant_id = 'acme' AND id = 'customers_by_segment'`.execute(
      db.handle.db,
    );
    for (const gw of [a, b]) {
      await eventually(async () =>
        expect(Object.keys((await schemaOf(gw)) ?? {})).toEqual([
          'customer_segment',
          'page',
          'page_size',
        ]),
      );
    }
    const call = await b.request('/v1/tools/query_report_customers_by_segment/call', {
      method: 'POST',
      as: alice,
      json: { arguments: { customer_segment: 'smb' } },
    });
    expect(((await call.json()) as { is_error: boolean }).is_error).toBe(false);
  });

  it('reconnects after its LISTEN connection is killed and serves nothing stale afterwards', async () => {
    const killed = await sql<{ n: number }>`
      SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
      WHERE application_name = 'gateway-listener' AND datname = current_database()`.execute(
      db.handle.db,
    );
    expect(killed.rows[0].n).toBe(2);
    // A change made while nobody listens must still show up on both instances.
    await psqlFile(db.url, 'onboard_report.sql');
    for (const gw of [a, b])
      await eventually(async () =>
        expect(await names(gw)).toContain('query_report_onboarding_demo'),
      );
    await eventually(async () => {
      const res = await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'gateway-listener' AND datname = current_database()`.execute(
        db.handle.db,
      );
      expect(res.rows[0].n).toBe(2);
    });
    await psqlFile(db.url, 'remove_report.sql');
    for (const gw of [a, b])
      await eventually(async () =>
        expect(await names(gw)).not.toContain('query_report_onboarding_demo'),
      );
  });

  it('keeps L2 entries in Redis under versioned keys with the configured TTL', async () => {
    const { default: Redis } = await import('ioredis');
    const redis = new Redis(process.env.TEST_REDIS_URL!);
    try {
      const prefix = `test-${path.basename(db.url)}:`;
      const keys = await eventually(async () => {
        const found = await redis.keys(`${prefix}*`);
        // the tenant's incarnation (database identity + created_at) is part of every key
        expect(found.some((k) => /^catalog:acme\.[\w-]+:v\d+$/.test(k.slice(prefix.length)))).toBe(
          true,
        );
        expect(found.some((k) => k.startsWith(`${prefix}list:acme.`))).toBe(true);
        return found;
      });
      const ttl = await redis.ttl(keys[0]);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(1800);
    } finally {
      redis.disconnect();
    }
  });
});
