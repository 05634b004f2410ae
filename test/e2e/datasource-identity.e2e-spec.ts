import { randomBytes } from 'node:crypto';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { createWarehouseDatabase, WAREHOUSE_NETWORKS } from '../support/warehouse';
import type { WarehouseDatabase } from '../support/warehouse';

/**
 * The caller's identity in the warehouse's own row-level security (issue #42): a source with
 * `pass_identity` sets `request.jwt.claims` (PostgREST's convention) in every session, so a
 * policy written against it sees who asks; without it the policy sees no claims at all.
 */
const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const bob: TokenClaims = { tenant: 'acme', user: 'bob', roles: ['analyst'] };

const WAREHOUSE_SQL = `
  CREATE SCHEMA sales;
  CREATE TABLE sales.deals (id integer PRIMARY KEY, owner text NOT NULL, amount numeric NOT NULL);
  INSERT INTO sales.deals VALUES (1, 'alice', 100), (2, 'bob', 200), (3, 'alice', 300), (4, 'carol', 400);
  ALTER TABLE sales.deals ENABLE ROW LEVEL SECURITY;
  -- the warehouse's own policy: a login sees the deals of the user the gateway says is asking,
  -- and only when that user holds the analyst role in the acme tenant
  CREATE POLICY own_deals ON sales.deals FOR SELECT USING (
    owner = current_setting('request.jwt.claims', true)::json->>'sub'
    AND current_setting('request.jwt.claims', true)::json->>'tenant' = 'acme'
    AND (current_setting('request.jwt.claims', true)::jsonb->'roles') ? 'analyst');
`;

const report = (datasource: string) => ({
  name: `Deals on ${datasource}`,
  description: 'The deals the warehouse lets the caller see.',
  sql_template: 'SELECT d.id, d.owner, d.amount FROM deals d ORDER BY d.id',
  category: 'sales',
  datasource,
  cache_ttl_seconds: 300,
  filters: [],
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'owner', type: 'string' },
    { name: 'amount', type: 'number' },
  ],
});

describe('pass_identity: the caller reaches the warehouse as request.jwt.claims (e2e)', () => {
  let gw: RunningGateway;
  let wh: WarehouseDatabase;

  beforeAll(async () => {
    wh = await createWarehouseDatabase(WAREHOUSE_SQL);
    const reader = await wh.login((r) => [
      `GRANT USAGE ON SCHEMA sales TO ${r}`,
      `GRANT SELECT ON sales.deals TO ${r}`,
    ]);
    gw = await startGateway({
      ...WAREHOUSE_NETWORKS,
      DATASOURCE_KEY: randomBytes(32).toString('base64'),
    });
    const source = { url: reader.url, schema: 'sales', tables: ['deals'] };
    for (const [name, body] of [
      ['wh_identity', { ...source, pass_identity: true }],
      ['wh_plain', source],
    ] as const) {
      const put = await gw.request(`/v1/admin/datasources/${name}`, {
        method: 'PUT',
        as: root,
        json: body,
      });
      expect(put.status).toBe(201);
      expect(((await put.json()) as { pass_identity: boolean }).pass_identity).toBe(
        name === 'wh_identity',
      );
      const saved = await gw.request(`/v1/admin/reports/${name}_deals`, {
        method: 'PUT',
        as: root,
        json: report(name),
      });
      expect(saved.status).toBeLessThan(300);
    }
  });
  afterAll(async () => {
    await gw?.close();
    await wh?.drop();
  });

  const owners = async (who: TokenClaims, tool: string): Promise<string[]> => {
    const res = await gw.request(`/v1/tools/${tool}/call`, {
      method: 'POST',
      as: who,
      json: { arguments: {} },
    });
    const body = (await res.json()) as {
      is_error: boolean;
      result: { rows: Array<{ owner: string }> };
    };
    expect(body.is_error).toBe(false);
    return body.result.rows.map((r) => r.owner);
  };

  it('shows each user only the rows the policy gives them, cache or not', async () => {
    expect(await owners(alice, 'query_report_wh_identity_deals')).toEqual(['alice', 'alice']);
    expect(await owners(bob, 'query_report_wh_identity_deals')).toEqual(['bob']);
    // the second answers come from the result cache: still keyed on who asks
    expect(await owners(alice, 'query_report_wh_identity_deals')).toEqual(['alice', 'alice']);
    expect(await owners(bob, 'query_report_wh_identity_deals')).toEqual(['bob']);
  });

  it('tells the policy nothing without pass_identity: no claims, no rows', async () => {
    expect(await owners(alice, 'query_report_wh_plain_deals')).toEqual([]);
    expect(await owners(bob, 'query_report_wh_plain_deals')).toEqual([]);
  });
});
