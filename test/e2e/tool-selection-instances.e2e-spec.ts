import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '@app/db';
import { changeCatalog, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { createTestDatabase } from '../support/test-database';
import type { TestDatabase } from '../support/test-database';

const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const fiona: TokenClaims = { tenant: 'acme', user: 'fiona', roles: ['finance'] };

/** A report with words nobody else uses, granted to analysts only. */
async function addPenguinReport(db: Kysely<DB>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category, synonyms)
      VALUES ('acme', 'penguin_sightings', 'Penguin sightings', 'How many penguins were counted per region.',
        'SELECT o.region, count(*) AS n FROM orders o GROUP BY o.region', 'zoology', ARRAY['flightless birds'])`.execute(
      trx,
    );
    await sql`INSERT INTO gateway.role_grants (tenant_id, role, report_id) VALUES ('acme', 'analyst', 'penguin_sightings')`.execute(
      trx,
    );
  });
}

const PENGUINS = 'query_report_penguin_sightings';

describe('tool selection on several instances (e2e, one Postgres)', () => {
  let db: TestDatabase;
  const gateways: RunningGateway[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    // past the threshold, so search_tools exists for analysts on both instances
    const env = { TOOLS_INLINE_MAX: '5', TOOLS_INLINE_COUNT: '2' };
    gateways.push(await startGateway(env, db), await startGateway(env, db));
  });
  afterAll(async () => {
    await Promise.all(gateways.map((gw) => gw.close()));
    await db.drop();
  });

  async function names(gw: RunningGateway, path: string, who: TokenClaims, json: unknown) {
    const res = await gw.request(path, { method: 'POST', as: who, json });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      ranking?: Array<{ name: string }>;
      result?: { tools: Array<{ name: string }> };
    };
    return (body.ranking ?? body.result?.tools ?? []).map((t) => t.name);
  }
  const select = (gw: RunningGateway, who: TokenClaims, text: string) =>
    names(gw, '/v1/tools/select', who, { messages: [{ role: 'user', content: text }], limit: 50 });
  const search = (gw: RunningGateway, who: TokenClaims, query: string) =>
    names(gw, '/v1/tools/search_tools/call', who, { arguments: { query, limit: 25 } });

  it('a report added on one instance is found by select and search_tools on every instance as soon as it is listed there', async () => {
    const [a, b] = gateways;
    // both instances have built their indexes before the change: the new report is patched in
    for (const gw of gateways) {
      expect(await select(gw, alice, 'penguins')).not.toContain(PENGUINS);
      expect(await search(gw, alice, 'penguins')).not.toContain(PENGUINS);
    }
    await changeCatalog(a, 'acme', addPenguinReport);
    // instance b learns of the change on its own; once its lists are at the new version...
    await changeCatalog(b, 'acme', async () => undefined);
    // ...its very next select and search find it, first, with no further wait
    for (const gw of [b, a]) {
      expect((await select(gw, alice, 'how many penguins did we see?'))[0]).toBe(PENGUINS);
      expect((await search(gw, alice, 'flightless birds'))[0]).toBe(PENGUINS);
    }
    // a role without the grant selects it on neither instance (finance is below the
    // threshold: it has no search_tools to ask)
    for (const gw of gateways) expect(await select(gw, fiona, 'penguins')).not.toContain(PENGUINS);
  });
});
