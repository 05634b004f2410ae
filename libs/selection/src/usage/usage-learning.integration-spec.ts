import { sql } from 'kysely';
import type { Principal } from '@app/registry';
import { eventually } from '../../../../test/support/eventually';
import { createTestDatabase } from '../../../../test/support/test-database';
import type { TestDatabase } from '../../../../test/support/test-database';
import { DEFAULT_SIGNALS } from '../signal-options';
import { ToolUsageRepository } from './tool-usage.repository';
import { HISTORY_RELOAD_MS, UsageLearning } from './usage-learning';

const DAY = 86_400_000;
const everyone = (): boolean => true;
const principal = (tenantId: string, userId: string): Principal => ({
  tenantId,
  userId,
  claims: {},
  roles: [],
});

describe('UsageLearning over gateway.tool_usage (real Postgres)', () => {
  let db: TestDatabase;
  let repo: ToolUsageRepository;
  const now = Date.now();

  async function insert(tenant: string, query: string, tool: string, ageDays: number) {
    const at = new Date(now - ageDays * DAY).toISOString();
    await sql`INSERT INTO gateway.tool_usage (tenant_id, user_id, query, tool_name, source, used_at)
      VALUES (${tenant}, 'u', ${query}, ${tool}, 'select', ${at})`.execute(db.handle.db);
  }

  // loading, recording and decay, one voice per tool here: the quorum of users (issue 38) is
  // the history's own spec, and test/e2e/ranking-voices.e2e-spec.ts
  function learning(): UsageLearning {
    const l = new UsageLearning(repo, { ...DEFAULT_SIGNALS, historyMinUsers: 1 });
    l.now = () => now;
    return l;
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    repo = new ToolUsageRepository(db.handle);
    await insert('acme', 'bed census by ward', 'query_report_fresh', 1);
    await insert('acme', 'bed census by ward', 'query_report_stale', 61);
    await insert('acme', 'bed census by ward', 'query_report_ancient', 400);
    await insert('globex', 'bed census by ward', 'query_report_theirs', 1);
  });
  afterAll(() => db.drop());

  it('loads a tenant’s own rows only: the same question finds nothing of another tenant', async () => {
    const l = learning();
    const acme = (await l.history('acme'))!.search('bed census by ward', everyone, 10, now);
    const globex = (await l.history('globex'))!.search('bed census by ward', everyone, 10, now);
    expect(acme.map((h) => h.name)).toEqual(['query_report_fresh', 'query_report_stale']);
    expect(globex.map((h) => h.name)).toEqual(['query_report_theirs']);
    expect(await l.history('initech')).toBeDefined();
    expect((await l.history('initech'))!.size).toBe(0);
  });

  it('decays with age (two half-lives: a quarter) and forgets past the maximum age', async () => {
    const hits = (await learning().history('acme'))!.search(
      'bed census by ward',
      everyone,
      10,
      now,
    );
    const [fresh, stale] = hits;
    const halfLife = DEFAULT_SIGNALS.historyHalfLifeDays;
    expect(stale.score / fresh.score).toBeCloseTo(Math.pow(0.5, 60 / halfLife), 2);
    expect(hits.map((h) => h.name)).not.toContain('query_report_ancient');
  });

  it('records the call that follows a question, in the caller’s tenant, and serves it at once', async () => {
    const l = learning();
    await l.history('acme');
    const alice = principal('acme', 'alice');
    l.asked(alice, 'penguin headcount', 'select');
    l.called(alice, 'query_report_penguins');
    // a second call with no new question is not learned
    l.called(alice, 'query_report_other');
    const served = (await l.history('acme'))!.search('penguin headcount', everyone, 5, now);
    expect(served.map((h) => h.name)).toEqual(['query_report_penguins']);
    // the write is not awaited by called()
    const rows = await eventually(async () => {
      const { rows: r } = await sql<{ tenant_id: string; tool_name: string }>`
        SELECT tenant_id, tool_name FROM gateway.tool_usage WHERE query = 'penguin headcount'`.execute(
        db.handle.db,
      );
      if (r.length === 0) throw new Error('not recorded yet');
      return r;
    });
    expect(rows).toEqual([{ tenant_id: 'acme', tool_name: 'query_report_penguins' }]);
    // another tenant's fresh load does not see it
    const globex = (await learning().history('globex'))!.search(
      'penguin headcount',
      everyone,
      5,
      now,
    );
    expect(globex).toEqual([]);
  });

  it('re-reads a tenant’s rows after the reload interval (other instances record too)', async () => {
    const l = learning();
    expect((await l.history('acme'))!.search('walrus tally', everyone, 5, now)).toEqual([]);
    await insert('acme', 'walrus tally', 'query_report_walrus', 0);
    expect((await l.history('acme'))!.search('walrus tally', everyone, 5, now)).toEqual([]);
    l.now = () => now + HISTORY_RELOAD_MS + 1;
    const later = (await l.history('acme'))!.search('walrus tally', everyone, 5, now);
    expect(later.map((h) => h.name)).toEqual(['query_report_walrus']);
  });

  it('prunes a tenant’s rows past the maximum age when it re-reads them, and only that tenant’s', async () => {
    const count = async (tenant: string, olderThanDays: number) => {
      const { rows } = await sql<{ n: number }>`
        SELECT count(*)::int AS n FROM gateway.tool_usage
         WHERE tenant_id = ${tenant} AND used_at < ${new Date(now - olderThanDays * DAY).toISOString()}`.execute(
        db.handle.db,
      );
      return rows[0].n;
    };
    await insert('acme', 'older question', 'query_report_older', 300);
    await insert('globex', 'old question', 'query_report_old', 400);
    expect(await count('acme', 180)).toBe(1);
    await learning().history('acme');
    // the prune is not awaited by the load
    await eventually(async () => {
      if ((await count('acme', 180)) > 0) throw new Error('not pruned yet');
    });
    expect(await count('globex', 180)).toBe(1);
    const removed = await repo.forget('globex', new Date(now - 180 * DAY));
    expect(removed).toBe(1);
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM gateway.tool_usage WHERE tenant_id = 'globex'`.execute(
      db.handle.db,
    );
    expect(rows[0].n).toBe(1);
  });

  it('is off when SELECTION_HISTORY=0: nothing pending, nothing served', async () => {
    const off = new UsageLearning(repo, { ...DEFAULT_SIGNALS, history: false });
    off.asked(principal('acme', 'bob'), 'bed census', 'select');
    off.called(principal('acme', 'bob'), 'query_report_x');
    expect(await off.history('acme')).toBeUndefined();
  });
});
