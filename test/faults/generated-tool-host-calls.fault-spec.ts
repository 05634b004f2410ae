import pg from 'pg';
import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';
import { SandboxedToolRunner } from '@app/meta-tool';
import { analystAuthor, callTool, install, reviewer, toolSource } from '../support/meta-tool';

/**
 * Fault (#28 item 1): a generated tool starts data calls (`ctx.report`, `ctx.query`) and ends
 * (returns without awaiting them, or times out awaiting them). Its statements end with it,
 * cancelled in Postgres, and while they live they count against the tenant's cap on queries
 * running at once, like any call's query. A lock the test holds on the tenant's `orders` keeps
 * each statement running (waiting) for as long as the test needs, with no CPU spent and no
 * sleep: the statement timeout (60 s) is far off, so only a cancel ends them this soon.
 */
describe('faults: the data calls of a generated tool end with its run', () => {
  let gw: RunningGateway;
  let locker: pg.Client;
  const analyst: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
  const gina: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };

  beforeAll(async () => {
    gw = await startGateway({
      META_TOOL_TIMEOUT_MS: '3000',
      META_TOOL_CPU_MS: '2500',
      REPORT_STATEMENT_TIMEOUT_MS: '60000',
      LIMIT_TENANT_CONCURRENT_QUERIES: '2',
      // a call over the limit is refused at once (not queued), so the refusal shows the count
      LIMIT_TENANT_QUEUE_WAIT_MS: '0',
      META_TOOL_APPROVAL_WAIT_MS: '',
      META_TOOL_ENABLED: '',
    });
    // each fires its data calls only when asked (`go`), so the smoke call at approval is quick
    await install(
      gw,
      {
        name: 'fire_and_return',
        code: toolSource(
          'fire_and_return',
          "if (!args.go) return 'idle'; ctx.report('orders_by_status', {}).catch(() => 0); ctx.query('SELECT count(*) AS n FROM orders').catch(() => 0); return 'fired';",
        ),
        testArgs: {},
      },
      analystAuthor,
    );
    await install(
      gw,
      {
        name: 'await_two',
        code: toolSource(
          'await_two',
          "if (!args.go) return 'idle'; await Promise.all([ctx.report('orders_by_status', {}), ctx.report('orders_by_status', { since: '2020-01-01' })]); return 'done';",
        ),
        testArgs: {},
      },
      analystAuthor,
    );
    await install(
      gw,
      {
        name: 'host_bounds',
        code: toolSource(
          'host_bounds',
          `const settle = (p) => p.then(() => 'ran', (e) => String(e && e.message));
          if (args.deep) { let v = {}; for (let i = 0; i < 40; i++) v = { a: v }; return settle(ctx.report('orders_by_status', v)); }
          if (args.deepRows) return settle(ctx.query("SELECT (repeat('[', 40) || repeat(']', 40))::jsonb AS j FROM orders LIMIT 1"));
          if (args.wideRows) return settle(ctx.query("SELECT repeat('x', 1000) AS t FROM orders LIMIT 1000"));
          if (args.override) { JSON.stringify = () => '{"a":'.repeat(40) + '1' + '}'.repeat(40); return settle(ctx.report('orders_by_status', {})); }
          return 'idle';`,
        ),
        testArgs: {},
      },
      analystAuthor,
    );
    await install(
      gw,
      {
        name: 'leaky',
        code: toolSource(
          'leaky',
          "if (!args.go) return 'idle'; const page = await ctx.report('orders_by_status', {}); throw new Error('unexpected rows ' + JSON.stringify(page.rows));",
        ),
        testArgs: {},
      },
      analystAuthor,
    );
    locker = new pg.Client({ connectionString: gw.database.url });
    await locker.connect();
  });
  afterAll(async () => {
    await locker.end();
    await gw.close();
  });
  afterEach(() => locker.query('ROLLBACK'));

  const lockOrders = async () => {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE tenant_acme.orders IN ACCESS EXCLUSIVE MODE');
  };
  /** statements of the gateway waiting for the test's lock: the data calls still alive */
  const waitingOnOrders = async () => {
    // pg_locks, not pg_stat_activity: the latter is a snapshot inside the locker's transaction
    const { rows } = await locker.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'tenant_acme.orders'::regclass",
    );
    return rows[0].n;
  };

  it('a tool that fires ctx.report and ctx.query and returns: both are cancelled by the time the call answers', async () => {
    await lockOrders();
    const called = await callTool(gw, analystAuthor, 'fire_and_return', { go: true });
    expect(called.body).toMatchObject({ is_error: false, result: { value: 'fired' } });
    // nothing left running: before, both waited here until the 60 s statement timeout
    expect(await waitingOnOrders()).toBe(0);
  });

  it('data calls count against LIMIT_TENANT_CONCURRENT_QUERIES while they live, and a timed-out run leaves none', async () => {
    await lockOrders();
    const running = callTool(gw, analystAuthor, 'await_two', { go: true });
    // the call's own slot covers one data call, the second takes the tenant's other slot
    await eventually(async () => expect(await waitingOnOrders()).toBe(2));
    const refused = await gw.request('/v1/tools/query_report_orders_by_status/call', {
      method: 'POST',
      as: analyst,
      json: { arguments: {} },
    });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    // another tenant is not held back by acme's statements
    const other = await callTool(gw, gina, 'query_report_orders_by_status', {});
    expect(other.body.is_error).toBe(false);
    const ended = await running;
    expect(ended.body.error?.message).toMatch(/await_two failed \(timeout\)/);
    expect(await waitingOnOrders()).toBe(0);
    await locker.query('ROLLBACK');
    // the slots came back with the statements
    const after = await callTool(gw, analyst, 'query_report_orders_by_status', {});
    expect(after.body.is_error).toBe(false);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    [
      'arguments nested 40 levels',
      { deep: true },
      /^the arguments of ctx\.report are nested more than 32 levels deep; nothing was run$/,
    ],
    [
      'a result nested 42 levels (a jsonb value)',
      { deepRows: true },
      /^the values in the result of ctx\.query are nested more than 32 levels deep/,
    ],
    [
      'a result of 1,000 rows of 1 KB',
      { wideRows: true },
      /^the values in the result of ctx\.query are larger than 524288 bytes/,
    ],
    // the doors encode with the engine's own JSON, whatever the tool did to the global
    ['arguments encoded by an overridden JSON.stringify', { override: true }, /^ran$/],
  ])(
    'a data call with %s meets the bounds of the call entry (#28 item 9)',
    async (_, args, says) => {
      const called = await callTool(gw, analystAuthor, 'host_bounds', args);
      expect(called.body.is_error).toBe(false);
      expect(String(called.body.result?.value)).toMatch(says);
    },
  );

  it('a tool that throws with the rows it read: reviewers read last_error without them, the caller reads all (#28 item 5)', async () => {
    const page = await callTool(gw, analyst, 'query_report_orders_by_status', {});
    const rows = (page.body.result as { rows: Array<Record<string, unknown>> }).rows;
    const values = rows.flatMap((r) => [String(r.status), String(r.order_count)]);
    expect(values.length).toBeGreaterThan(4);
    const called = await callTool(gw, analystAuthor, 'leaky', { go: true });
    expect(called.body.error?.code).toBe('TOOL_FAILED');
    // the caller may read their own rows
    for (const value of values) expect(called.body.error?.message).toContain(value);
    await gw.app.get(SandboxedToolRunner).flushStats();
    const listed = await gw.request('/v1/admin/generated-tools', { as: reviewer });
    const tools = ((await listed.json()) as { tools: Array<{ name: string; last_error: string }> })
      .tools;
    const lastError = tools.find((t) => t.name === 'leaky')?.last_error ?? '';
    expect(lastError).toMatch(
      /^TOOL_FAILED \(run\): unexpected rows \[\{"status":"‹value›","order_count":‹value›/,
    );
    for (const value of values) expect(lastError).not.toMatch(new RegExp(`\\b${value}\\b`));
  });
});
