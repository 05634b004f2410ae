import { randomBytes } from 'node:crypto';
import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { author, callTool, propose, toolSource } from '../support/meta-tool';
import { createTestDatabase } from '../support/test-database';

const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const bob: TokenClaims = { tenant: 'acme', user: 'bob', roles: ['analyst'] };
const gina: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };
const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const otherAuthor: TokenClaims = { ...author, user: 'ada-2' };
const SALES = 'query_report_sales_by_region';

/** startGateway leaves its settings in process.env: each test puts back what it found. */
async function withGateways(
  count: number,
  env: Record<string, string>,
  body: (gws: RunningGateway[]) => Promise<void>,
): Promise<void> {
  const saved = Object.keys(env).map((k) => [k, process.env[k]] as const);
  const db = await createTestDatabase();
  const gws: RunningGateway[] = [];
  try {
    for (let i = 0; i < count; i++) gws.push(await startGateway(env, db));
    await body(gws);
  } finally {
    for (const gw of gws) await gw.close();
    await db.drop();
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

const sharedRedis = () => ({
  REDIS_URL: process.env.TEST_REDIS_URL ?? '',
  REDIS_KEY_PREFIX: `limits-${randomBytes(4).toString('hex')}`,
});

interface LimitedBody {
  is_error?: boolean;
  error?: { code: string; message: string; details?: { limit?: string } };
  result?: { proposal_id?: string; state?: string };
}

describe('limits shared by two instances (e2e, real Redis)', () => {
  it('counts meta_tool proposals per author per day across instances; asking about one is free', async () => {
    await withGateways(
      2,
      { ...sharedRedis(), LIMIT_PROPOSALS_PER_AUTHOR_PER_DAY: '2' },
      async ([one, two]) => {
        const code = (name: string) => toolSource(name, 'return 1;');
        const first = await propose(one, { name: 'daily_one', code: code('daily_one') });
        expect(first.status).toBe(200);
        expect(first.body.is_error).toBe(false);
        const id = String(first.body.result?.proposal_id);
        expect(
          (await propose(two, { name: 'daily_two', code: code('daily_two') })).body.is_error,
        ).toBe(false);
        // asking about a proposal is not a proposal
        for (const gw of [one, two]) {
          const status = await callTool(gw, author, 'meta_tool', { proposal_id: id });
          expect(status.status).toBe(200);
          expect(status.body.is_error).toBe(false);
        }
        const third = await one.request('/v1/tools/meta_tool/call', {
          method: 'POST',
          as: author,
          json: { arguments: { name: 'daily_three', code: code('daily_three') } },
        });
        expect(third.status).toBe(429);
        expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        const body = (await third.json()) as LimitedBody;
        expect(body.error?.code).toBe('RATE_LIMITED');
        expect(body.error?.details?.limit).toBe('proposals_per_author_per_day');
        expect(body.error?.message).toMatch(
          /meta_tool proposals per day are over the limit of 2; retry in \d+ seconds?/,
        );
        // another author of the same tenant has a budget of their own
        const other = await propose(
          two,
          { name: 'daily_other', code: code('daily_other') },
          otherAuthor,
        );
        expect(other.body.is_error).toBe(false);
      },
    );
  });

  it('counts tool calls per tenant across instances; another tenant keeps its own budget', async () => {
    await withGateways(
      2,
      { ...sharedRedis(), LIMIT_TENANT_CALLS_PER_MIN: '2' },
      async ([one, two]) => {
        const call = (gw: RunningGateway, who: TokenClaims) =>
          gw.request(`/v1/tools/${SALES}/call`, {
            method: 'POST',
            as: who,
            json: { arguments: { region: 'east' } },
          });
        expect((await call(one, alice)).status).toBe(200);
        expect((await call(two, bob)).status).toBe(200);
        const limited = await call(one, bob);
        expect(limited.status).toBe(429);
        const body = (await limited.json()) as LimitedBody;
        expect(body.error?.details?.limit).toBe('tenant_calls_per_min');
        expect(body.error?.message).toMatch(
          /organisation's tool calls per minute are over the limit of 2/,
        );
        const other = await call(two, gina);
        expect(other.status).toBe(200);
        expect(((await other.json()) as LimitedBody).is_error).toBe(false);
      },
    );
  });

  it('refuses a body over LIMIT_BODY_BYTES with a coded 413 and takes one under it', async () => {
    await withGateways(1, { LIMIT_BODY_BYTES: '2048' }, async ([gw]) => {
      const call = (region: string) =>
        gw.request(`/v1/tools/${SALES}/call`, {
          method: 'POST',
          as: alice,
          json: { arguments: { region } },
        });
      const big = await call('x'.repeat(4096));
      expect(big.status).toBe(413);
      expect(((await big.json()) as LimitedBody).error?.code).toBe('HTTP_413');
      expect((await call('east')).status).toBe(200);
    });
  });
});

describe('catalog change-propagation lag (e2e)', () => {
  it('observes gateway_catalog_propagation_seconds when a change reaches this instance, not for a first load', async () => {
    await withGateways(2, sharedRedis(), async ([writer, reader]) => {
      const lagCount = async (): Promise<number> => {
        const text = await (await fetch(`${reader.baseUrl}/metrics`)).text();
        return Number(/^gateway_catalog_propagation_seconds_count (\d+)/m.exec(text)?.[1] ?? 0);
      };
      const names = async (): Promise<string[]> => {
        const res = await reader.request('/v1/tools?format=mcp', { as: root });
        return ((await res.json()) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
      };
      expect(await names()).not.toContain('query_report_lag_probe');
      expect(await lagCount()).toBe(0); // a first load is not a propagation
      const put = await writer.request('/v1/admin/reports/lag_probe', {
        method: 'PUT',
        as: root,
        json: {
          name: 'Lag probe',
          description: 'added to see the change reach the other instance',
          sql_template: 'SELECT count(*) AS n FROM orders',
          category: 'sales',
        },
      });
      expect(put.status).toBe(201);
      await eventually(async () => expect(await names()).toContain('query_report_lag_probe'));
      expect(await lagCount()).toBeGreaterThanOrEqual(1);
      const text = await (await fetch(`${reader.baseUrl}/metrics`)).text();
      const sum = Number(/^gateway_catalog_propagation_seconds_sum (\S+)/m.exec(text)?.[1]);
      expect(sum).toBeGreaterThanOrEqual(0);
      expect(text).toMatch(/^gateway_catalog_propagation_seconds_bucket\{le="\+Inf"\} [1-9]/m);
    });
  });
});
