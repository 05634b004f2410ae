import { sql } from 'kysely';
import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

/**
 * Issue 38, finding 6: usage-based ranking weighs users, not rows. One user's repeated
 * select -> call cycles are one voice, which counts for colleagues only once
 * SELECTION_HISTORY_MIN_USERS users agree; the user's own ranking still learns from it; a user
 * adds at most SELECTION_HISTORY_PER_USER_PER_DAY rows a day, and questions are cut short.
 */
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const bob: TokenClaims = { tenant: 'acme', user: 'bob', roles: ['analyst'] };
const QUESTION = 'orders sales revenue customers products stock region month status';

interface SelectBody {
  ranking: Array<{ name: string }>;
}

describe('usage ranking weighs users, not rows (e2e)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  const ranking = async (who: TokenClaims, text = QUESTION) => {
    const res = await gw.request('/v1/tools/select', {
      method: 'POST',
      as: who,
      json: { messages: [{ role: 'user', content: text }], limit: 50 },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as SelectBody).ranking.map((t) => t.name);
  };
  const call = async (who: TokenClaims, tool: string) => {
    const res = await gw.request(`/v1/tools/${tool}/call`, {
      method: 'POST',
      as: who,
      json: { arguments: {} },
    });
    return ((await res.json()) as { is_error: boolean }).is_error === false;
  };
  const rows = async () =>
    (
      await sql<{ n: string }>`
        SELECT count(*) AS n FROM gateway.tool_usage
         WHERE tenant_id = 'acme' AND user_id = 'alice'`.execute(gw.database.handle.db)
    ).rows[0];

  it("200 select -> call cycles by one user move another user's ranking by at most 1 place", async () => {
    const before = await ranking(bob);
    expect(before.length).toBeGreaterThanOrEqual(6);
    // the lowest-ranked tool (4th place or below) that runs without arguments, tried by a
    // user who asked nothing (so the try is learned by no one)
    const probe = { ...alice, user: 'probe' };
    let target: string | undefined;
    for (const name of [...before].reverse().slice(0, before.length - 3))
      if (await call(probe, name)) {
        target = name;
        break;
      }
    expect(target).toBeDefined();
    const from = before.indexOf(target!);

    for (let cycle = 0; cycle < 200; cycle++) {
      await ranking(alice);
      expect(await call(alice, target!)).toBe(true);
    }

    const after = await ranking(bob);
    expect(Math.abs(after.indexOf(target!) - from)).toBeLessThanOrEqual(1);
    // alice's own ranking learned from her choice
    expect((await ranking(alice)).indexOf(target!)).toBeLessThan(from);
    // and she added a day's worth of rows (SELECTION_HISTORY_PER_USER_PER_DAY), not 200
    await eventually(async () => expect(Number((await rows()).n)).toBe(20));
  }, 60_000);

  it('keeps at most 500 characters of a question', async () => {
    const long = `${QUESTION} ${'and more words '.repeat(200)}`;
    await ranking({ ...alice, user: 'carol' }, long);
    expect(await call({ ...alice, user: 'carol' }, 'query_report_sales_by_region')).toBe(true);
    await eventually(async () => {
      const stored = await sql<{ longest: number | null }>`
        SELECT max(length(query)) AS longest FROM gateway.tool_usage
         WHERE tenant_id = 'acme' AND user_id = 'carol'`.execute(gw.database.handle.db);
      expect(stored.rows[0].longest).toBe(500);
    });
  });
});
