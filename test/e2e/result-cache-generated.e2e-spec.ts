import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { analystAuthor, callTool, install, toolSource } from '../support/meta-tool';
import { CACHED_CUSTOMER, WHO_AM_I } from '../support/cached-reports';

/**
 * A generated tool's `ctx.report` goes through the result cache with its caller's identity
 * (issue #41): the rows it gets are the ones the caller would get calling the report directly,
 * shared where the report shares them, never across the identities it is bound to.
 */
const admin: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const bob: TokenClaims = { tenant: 'acme', user: 'bob', roles: ['analyst', 'tool_author'] };

const BOTH = toolSource(
  'cached_pair',
  "const shared = await ctx.report('cached_customer', { customer_id: 2 }); const mine = await ctx.report('who_am_i', {}); return { shared: shared.rows[0].read_at, who: mine.rows[0].who, mine: mine.rows[0].read_at };",
);

describe('result cache under ctx.report (e2e)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway({ META_TOOL_TIMEOUT_MS: '4000', META_TOOL_ENABLED: '' });
    for (const [id, doc] of [
      ['cached_customer', CACHED_CUSTOMER],
      ['who_am_i', WHO_AM_I],
    ] as const) {
      const res = await gw.request(`/v1/admin/reports/${id}`, {
        method: 'PUT',
        as: admin,
        json: doc,
      });
      expect(res.status).toBe(201);
    }
    const decision = await install(
      gw,
      { name: 'cached_pair', code: BOTH, testArgs: {} },
      analystAuthor,
    );
    expect(decision.status).toBe('installed');
  });
  afterAll(() => gw?.close());

  const value = async (who: TokenClaims) => {
    const { body } = await callTool(gw, who, 'cached_pair', {});
    expect(body.is_error).toBe(false);
    return body.result?.value as { shared: string; who: string; mine: string };
  };

  it('shares what the report shares, keeps apart what it binds to the caller', async () => {
    const direct = await callTool(gw, bob, 'query_report_cached_customer', { customer_id: 2 });
    const directRead = (direct.body.result?.rows as Array<{ read_at: string }>)[0].read_at;
    const ada = await value(analystAuthor);
    const b = await value(bob);
    // the direct call's entry answers both generated-tool calls: the same read
    expect(ada.shared).toBe(directRead);
    expect(b.shared).toBe(directRead);
    // bound to :user_id: each caller their own rows, each read once and then cached
    expect(ada.who).toBe('ada');
    expect(b.who).toBe('bob');
    expect(b.mine).not.toBe(ada.mine);
    expect((await value(analystAuthor)).mine).toBe(ada.mine);
  });
});
