import pg from 'pg';
import { eventually } from '../support/eventually';
import { mintToken, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { MODERN_META, modernPost } from '../support/mcp-modern';
import type { TestDatabase } from '../support/test-database';

/**
 * Issue 38, finding 4: fairness between tenants with the default settings. The per-tenant
 * concurrency limit is on by default (three quarters of DB_POOL_SIZE), a call over it waits
 * in a queue of its tenant's, and a client that goes away takes its call out of the queue and
 * cancels its running statement. Tasks count against the same limit. acme's reports are held
 * up by a lock on its orders table (slow without burning the machine's CPU); globex's are not.
 */
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const bob: TokenClaims = { tenant: 'acme', user: 'bob', roles: ['analyst'] };
const gina: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };
const SALES = 'query_report_sales_by_region';
const TASKS = 'io.modelcontextprotocol/tasks';

/** Holds an ACCESS EXCLUSIVE lock on a tenant's orders until the returned function runs. */
async function lockOrders(db: TestDatabase, schema: string): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query('BEGIN');
  await client.query(`LOCK TABLE ${schema}.orders IN ACCESS EXCLUSIVE MODE`);
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await client.query('ROLLBACK');
    await client.end();
  };
}

/** Report statements of the gateway running on acme's data (blocked on the lock or not). */
async function acmeStatements(db: TestDatabase): Promise<number> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND state = 'active'
          AND application_name LIKE 'gateway trace=%' AND query LIKE '%orders%'
          AND pid <> pg_backend_pid()`,
    );
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

describe('fairness between tenants by default (e2e)', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    // the default limit and queue; only the statement timeout is raised, so that nothing but
    // a cancel ends acme's blocked statements within the test
    gw = await startGateway({ REPORT_STATEMENT_TIMEOUT_MS: '60000', MCP_TASK_AFTER_MS: '0' });
  });
  afterAll(() => gw.close());

  const restCall = (who: TokenClaims, signal?: AbortSignal) =>
    gw.request(`/v1/tools/${SALES}/call`, {
      method: 'POST',
      as: who,
      json: { arguments: { region: 'east' } },
      signal,
    });

  /** globex's call, timed. */
  async function globexCall(): Promise<number> {
    const started = performance.now();
    const res = await restCall(gina);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { is_error: boolean }).is_error).toBe(false);
    return performance.now() - started;
  }

  it('40 slow acme calls aborted by their client: globex answers within 1 s meanwhile, and no acme statement is left running 3 s after', async () => {
    const release = await lockOrders(gw.database, 'tenant_acme');
    try {
      const client = new AbortController();
      const calls = Array.from({ length: 40 }, () =>
        restCall(alice, client.signal).then(
          () => 'answered',
          () => 'aborted',
        ),
      );
      // acme's limit of statements waits on the lock (the rest queue in the gateway)
      await eventually(async () => expect(await acmeStatements(gw.database)).toBe(7), {
        timeoutMs: 5000,
      });
      expect(await globexCall()).toBeLessThanOrEqual(1000);
      client.abort();
      expect(new Set(await Promise.all(calls))).toEqual(new Set(['aborted']));
      await eventually(async () => expect(await acmeStatements(gw.database)).toBe(0), {
        timeoutMs: 3000,
      });
      expect(await globexCall()).toBeLessThanOrEqual(1000);
    } finally {
      await release();
    }
  }, 30_000);

  it('40 acme task calls count against the same limit: globex answers within 1 s meanwhile', async () => {
    const release = await lockOrders(gw.database, 'tenant_acme');
    // two analysts, 20 tasks each (MCP_TASKS_PER_USER's default)
    const tokens = [await mintToken(alice), await mintToken(bob)];
    const meta = {
      ...MODERN_META,
      'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
    };
    const taskIds: Array<[string, string]> = [];
    try {
      for (let i = 0; i < 40; i++) {
        const token = tokens[i % 2];
        const res = await modernPost(`${gw.baseUrl}/mcp`, token, 'tools/call', {
          _meta: meta,
          name: SALES,
          arguments: { region: 'east' },
        });
        expect(res.body.result!.resultType).toBe('task');
        taskIds.push([token, res.body.result!.taskId as string]);
      }
      // no more of acme's statements run than its limit, however many tasks it holds
      await eventually(async () => expect(await acmeStatements(gw.database)).toBe(7));
      expect(await globexCall()).toBeLessThanOrEqual(1000);
      for (const [token, taskId] of taskIds)
        await modernPost(`${gw.baseUrl}/mcp`, token, 'tasks/cancel', { _meta: meta, taskId });
      await eventually(async () => expect(await acmeStatements(gw.database)).toBe(0), {
        timeoutMs: 5000,
      });
    } finally {
      await release();
    }
  }, 30_000);
});
