import { connectPostgres, namedStatement } from '@app/db';
import type { DatabaseHandle, NamedStatement } from '@app/db';
import { sql } from 'kysely';
import { initSqlParser, ReportTool } from '@app/templates';
import { createTestDatabase } from '../../../../test/support/test-database';
import type { TestDatabase } from '../../../../test/support/test-database';
import type { Principal } from '../access/principal';
import type { TenantCatalog } from '../catalog/model/tenant-catalog';
import type { CatalogService } from '../listing/catalog.service';
import { standaloneCatalog } from '../testing';
import { DEFAULT_REGISTRY_OPTIONS } from '../tokens';
import { ReportExecutor } from './report-executor';
import { sessionLimits, sessionSetup } from './session-setup';
import type { ToolCallOutcome } from './tool-outcome';

const alice: Principal = { tenantId: 'acme', userId: 'alice', roles: ['analyst'], claims: {} };
const gina: Principal = { tenantId: 'globex', userId: 'gina', roles: ['analyst'], claims: {} };
const OPTIONS = { ...DEFAULT_REGISTRY_OPTIONS, statementTimeoutMs: 2000 };
/** a tenant on acme's schema whose reader role may read `orders` only */
const PEER = 'h17_peer';

/** The rows of a successful call (the test fails on an error outcome). */
function rowsOf(outcome: ToolCallOutcome): Record<string, unknown>[] {
  if (outcome.is_error) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
  return (outcome.result as { rows: Record<string, unknown>[] }).rows;
}

/**
 * Report calls run as named statements, parsed once per pooled connection (ADR 0005). On one
 * connection, so every tenant's calls and the checks share the session the statements live in.
 */
describe('named statements per report (real Postgres)', () => {
  let db: TestDatabase;
  let single: DatabaseHandle;
  let executor: ReportExecutor;
  let catalog: CatalogService;
  let acme: TenantCatalog;
  let globex: TenantCatalog;
  let lookup: ReportTool;
  let globexLookup: ReportTool;

  beforeAll(async () => {
    await initSqlParser();
    db = await createTestDatabase();
    await sql`INSERT INTO gateway.tenants (id, name) VALUES (${PEER}, 'Peer')`.execute(
      db.handle.db,
    );
    await sql`INSERT INTO gateway.datasources (tenant_id, data_schema, allowed_tables)
              VALUES (${PEER}, 'tenant_acme', '{orders}')`.execute(db.handle.db);
    catalog = standaloneCatalog(db.handle, { staleAfterMs: 0 });
    const resolve = async (principal: Principal) => {
      const { catalog: tenant, tool } = await catalog.resolve(
        principal,
        'query_report_order_lookup',
      );
      if (tool.kind !== 'report') throw new Error('order_lookup is not a report');
      return { tenant, tool: tool.report };
    };
    ({ tenant: acme, tool: lookup } = await resolve(alice));
    ({ tenant: globex, tool: globexLookup } = await resolve(gina));
  });
  afterAll(() => db.drop());
  // a fresh connection per test: what one test prepared does not shape the next
  beforeEach(() => {
    single = connectPostgres(db.url, 1);
    executor = new ReportExecutor(single, OPTIONS);
  });
  afterEach(() => single.close());

  /** the session's named report statements, oldest first, and its backend */
  const onTheConnection = async () => {
    const statements = await single.withSession((s) =>
      s.query(
        "SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'gw\\_r\\_%' ORDER BY prepare_time",
      ),
    );
    const pid = await single.withSession((s) => s.query('SELECT pg_backend_pid() AS pid'));
    return {
      names: statements.rows.map((r) => r.name as string),
      texts: statements.rows.map((r) => r.statement as string),
      pid: pid.rows[0].pid as number,
    };
  };
  const nameOf = (tenant: TenantCatalog, tool: ReportTool) =>
    namedStatement(
      tenant.tenant.id,
      tenant.tenant.dataSchema ?? '',
      tool.report.id,
      tool.report.version,
      tool.pagedQuery.text,
    );
  /** the same SQL and values through the unnamed statement, as before ADR 0005 */
  const unnamed = (tenant: TenantCatalog, tool: ReportTool, orderId: number) =>
    executor
      .runReadOnly(tenant.tenant, tool.pagedQuery.text, [orderId, 21, 0])
      .then((r) => JSON.parse(JSON.stringify(r.rows)) as unknown);
  const deallocateAll = () => single.withSession((s) => s.script('DEALLOCATE ALL'));

  it('parses a report once per connection, then only binds it, with the same answers', async () => {
    const first = rowsOf(await executor.call(acme, lookup, { order_id: 7 }, alice));
    const before = await onTheConnection();
    const second = rowsOf(await executor.call(acme, lookup, { order_id: 7 }, alice));
    const third = rowsOf(await executor.call(acme, lookup, { order_id: 8 }, alice));
    const after = await onTheConnection();
    expect(first.length).toBeGreaterThan(0);
    expect(second).toEqual(first);
    expect(JSON.parse(JSON.stringify(first))).toEqual(await unnamed(acme, lookup, 7));
    expect(JSON.parse(JSON.stringify(third))).toEqual(await unnamed(acme, lookup, 8));
    // one name, on the same backend: a second Parse of it would have failed and been replaced
    expect(before.names).toEqual([nameOf(acme, lookup).name]);
    expect(after).toEqual(before);
    expect(after.names[0]).toMatch(/^gw_r_[0-9a-f]{32}$/);
    expect(after.texts[0]).toContain('AS report_rows LIMIT $2 OFFSET $3');
  });

  it('plans every call for its own values, never with a generic plan (optional filters stay fast)', async () => {
    // Postgres switches a named statement to a generic plan after five executions when it
    // estimates it no worse. With a report's optional filters ("(:x IS NULL OR col = :x)") that
    // plan keeps every filter as a runtime test and scans 1.7x slower (the bench's sales
    // report): every call must be planned for its values.
    const { catalog: tenant, tool } = await catalog.resolve(alice, 'query_report_sales_by_region');
    if (tool.kind !== 'report') throw new Error('sales_by_region is not a report');
    const args = { region: 'east', order_date: { start: '2026-01-01', end: '2026-03-31' } };
    const answers = [];
    for (let i = 0; i < 8; i++)
      answers.push(rowsOf(await executor.call(tenant, tool.report, args, alice)));
    expect(answers[0].length).toBeGreaterThan(0);
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    const plans = await single.withSession((s) =>
      s.query(
        "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'gw\\_r\\_%'",
      ),
    );
    expect(plans.rows).toEqual([{ generic_plans: 0, custom_plans: 8 }]);
  });

  it('gives each tenant its own name on a shared connection, and each tenant its own rows', async () => {
    const ours = rowsOf(await executor.call(acme, lookup, { order_id: 7 }, alice));
    const theirs = rowsOf(await executor.call(globex, globexLookup, { order_id: 7 }, gina));
    expect(JSON.parse(JSON.stringify(ours))).toEqual(await unnamed(acme, lookup, 7));
    expect(JSON.parse(JSON.stringify(theirs))).toEqual(await unnamed(globex, globexLookup, 7));
    expect(theirs).not.toEqual(ours);
    const { names } = await onTheConnection();
    expect(names).toEqual([nameOf(acme, lookup).name, nameOf(globex, globexLookup).name]);
    expect(new Set(names).size).toBe(2);
    // and again, both reused: still each tenant's own rows
    expect(rowsOf(await executor.call(globex, globexLookup, { order_id: 7 }, gina))).toEqual(
      theirs,
    );
    expect(rowsOf(await executor.call(acme, lookup, { order_id: 7 }, alice))).toEqual(ours);
  });

  it("refuses a statement prepared under one tenant's role when run under another's", async () => {
    rowsOf(await executor.call(acme, lookup, { order_id: 7 }, alice));
    const acmeStatement = nameOf(acme, lookup);
    expect((await onTheConnection()).names).toEqual([acmeStatement.name]);
    const bind = (setup: string[], statement: NamedStatement) =>
      single.guardedRead({
        setup,
        text: lookup.pagedQuery.text,
        values: [7, 21, 0],
        maxBytes: 1 << 20,
        timeoutMs: 5000,
        statement,
      });
    // acme's statement bound on the same connection under another tenant's role, as a bug in
    // naming would: a peer on the same schema whose role may read orders only is refused when
    // the statement runs (privileges are checked at execution, not at Parse)...
    await expect(
      bind(sessionSetup(PEER, 'tenant_acme', sessionLimits(OPTIONS)), acmeStatement),
    ).rejects.toThrow(/permission denied for table (customers|order_items|products)/);
    // ...and globex's role, which may not use acme's schema, does not even find the tables
    // (the cached statement is analysed again under the search_path that role sees)
    const asGlobex = sessionSetup('globex', 'tenant_acme', sessionLimits(OPTIONS));
    await expect(bind(asGlobex, acmeStatement)).rejects.toThrow(
      /relation "orders" does not exist|permission denied/,
    );
    // a Parse the server refused is not recorded as prepared: the name is not on the connection
    const refused = namedStatement('globex', 'tenant_acme', 'order_lookup', 1, 'x');
    await expect(bind(asGlobex, refused)).rejects.toThrow(
      /relation "orders" does not exist|permission denied/,
    );
    expect((await onTheConnection()).names).toEqual([acmeStatement.name]);
    // acme's own calls still work on that connection
    expect(
      JSON.parse(JSON.stringify(rowsOf(await executor.call(acme, lookup, { order_id: 7 }, alice)))),
    ).toEqual(await unnamed(acme, lookup, 7));
  });

  it('keeps every guarantee when the statement is reused: role, read-only, search_path, timeout, row cap', async () => {
    const probe = new ReportTool({
      ...lookup.report,
      id: 'probe',
      sqlTemplate: `SELECT current_user AS who, current_setting('transaction_read_only') AS read_only,
        current_setting('search_path') AS search_path, current_setting('statement_timeout') AS timeout,
        count(*)::int AS orders FROM orders WHERE id > :order_id`,
    });
    const expected = {
      who: 'gw_reader_acme',
      read_only: 'on',
      search_path: expect.stringMatching(/^"?tenant_acme"?, pg_catalog, pg_temp$/),
      timeout: '2s',
      orders: 50_000,
    };
    for (let i = 0; i < 3; i++)
      expect(rowsOf(await executor.call(acme, probe, { order_id: 0 }, alice))).toEqual([expected]);

    const locking = new ReportTool({
      ...lookup.report,
      id: 'locking',
      sqlTemplate: 'SELECT id FROM orders WHERE id = :order_id FOR UPDATE',
    });
    for (let i = 0; i < 2; i++) {
      const outcome = await executor.call(acme, locking, { order_id: 7 }, alice);
      expect(outcome.is_error && outcome.error.code).toBe('QUERY_FAILED');
    }
    await expect(
      executor.runReadOnly(acme.tenant, 'SELECT id FROM orders WHERE id = 7 FOR UPDATE', []),
    ).rejects.toThrow(/read-only transaction|permission denied/);

    const slowExecutor = new ReportExecutor(single, { ...OPTIONS, statementTimeoutMs: 300 });
    const slow = new ReportTool({
      ...lookup.report,
      id: 'slow',
      sqlTemplate: 'SELECT count(*) AS n FROM orders a, orders b WHERE a.id > :order_id',
    });
    for (let i = 0; i < 2; i++) {
      const outcome = await slowExecutor.call(acme, slow, { order_id: 0 }, alice);
      expect(outcome).toEqual({
        tool: 'query_report_slow',
        is_error: true,
        error: { code: 'TIMEOUT', message: expect.stringContaining('took longer than 0.3 s') },
      });
    }

    const many = new ReportTool({
      ...lookup.report,
      id: 'many',
      sqlTemplate: 'SELECT id FROM orders WHERE id > :order_id ORDER BY id',
    });
    const page = async (n: number) => {
      const outcome = await executor.call(
        acme,
        many,
        { order_id: 0, page: n, page_size: 2 },
        alice,
      );
      if (outcome.is_error) throw new Error(outcome.error.message);
      return outcome.result;
    };
    expect(await page(1)).toMatchObject({ rows: [{ id: 1 }, { id: 2 }], has_more: true });
    expect(await page(2)).toMatchObject({ rows: [{ id: 3 }, { id: 4 }], has_more: true });
    expect((await onTheConnection()).names).toContain(nameOf(acme, many).name);
  });

  it('runs a new report version under a new name, never the old statement', async () => {
    const v1 = rowsOf(await executor.call(acme, lookup, { order_id: 7 }, alice));
    const v2tool = new ReportTool({
      ...lookup.report,
      version: lookup.report.version + 1,
      sqlTemplate: `${lookup.report.sqlTemplate.replace('SELECT o.id AS order_id', "SELECT 'v2' AS edition, o.id AS order_id")}`,
    });
    const v2 = rowsOf(await executor.call(acme, v2tool, { order_id: 7 }, alice));
    expect(v2).toEqual(v1.map((row) => ({ edition: 'v2', ...row })));
    // the same SQL under a new version number gets a new name too
    const v3tool = new ReportTool({ ...v2tool.report, version: v2tool.report.version + 1 });
    expect(rowsOf(await executor.call(acme, v3tool, { order_id: 7 }, alice))).toEqual(v2);
    expect((await onTheConnection()).names).toEqual([
      nameOf(acme, lookup).name,
      nameOf(acme, v2tool).name,
      nameOf(acme, v3tool).name,
    ]);
    expect(new Set([lookup, v2tool, v3tool].map((t) => nameOf(acme, t).name)).size).toBe(3);
  });

  it('bounds the statements per connection, closing the least recently used in the next write', async () => {
    const bounded = connectPostgres(db.url, 1, 2);
    try {
      const boundedExecutor = new ReportExecutor(bounded, OPTIONS);
      const tools = [1, 2, 3, 4].map(
        (n) =>
          new ReportTool({
            ...lookup.report,
            id: `r${n}`,
            sqlTemplate: `SELECT ${n} AS n, count(*)::int AS c FROM orders WHERE id = :order_id`,
          }),
      );
      const names = async () =>
        (
          await bounded.withSession((s) =>
            s.query(
              "SELECT name FROM pg_prepared_statements WHERE name LIKE 'gw\\_r\\_%' ORDER BY name",
            ),
          )
        ).rows.map((r) => r.name as string);
      const expectNames = (...n: number[]) => n.map((i) => nameOf(acme, tools[i - 1]).name).sort();
      const call = async (n: number) =>
        expect(
          rowsOf(await boundedExecutor.call(acme, tools[n - 1], { order_id: 7 }, alice)),
        ).toEqual([{ n, c: 1 }]);
      await call(1);
      await call(2);
      await call(3); // r1 is evicted from the bookkeeping, closed in the next write
      expect(await names()).toEqual(expectNames(1, 2, 3));
      await call(4); // closes r1, then prepares r4 and evicts r2
      expect(await names()).toEqual(expectNames(2, 3, 4));
      await call(1); // closes r2, prepares r1 again, evicts r3
      expect(await names()).toEqual(expectNames(1, 3, 4));
      await call(4); // closes r3; r4 reused and now the most recent
      expect(await names()).toEqual(expectNames(1, 4));
      await call(3); // prepared again; r1, the least recent, is evicted (closed next time)
      expect(await names()).toEqual(expectNames(1, 3, 4));
    } finally {
      await bounded.close();
    }
  });

  it('recovers when the connection lost its statements (DEALLOCATE ALL), never a wrong result', async () => {
    const expected = JSON.parse(
      JSON.stringify(rowsOf(await executor.call(acme, lookup, { order_id: 9 }, alice))),
    ) as unknown;
    const before = await onTheConnection();
    expect(before.names).toContain(nameOf(acme, lookup).name);
    await deallocateAll();
    const outcome = await executor.call(acme, lookup, { order_id: 9 }, alice);
    expect(JSON.parse(JSON.stringify(rowsOf(outcome)))).toEqual(expected);
    // that connection was dropped and the call ran once more without the name; the next
    // connection prepares it afresh
    const after = await onTheConnection();
    expect(after.pid).not.toBe(before.pid);
    expect(after.names).toEqual([]);
    expect(
      JSON.parse(JSON.stringify(rowsOf(await executor.call(acme, lookup, { order_id: 9 }, alice)))),
    ).toEqual(expected);
    expect((await onTheConnection()).names).toEqual([nameOf(acme, lookup).name]);
  });

  it('recovers when the backend was terminated', async () => {
    const expected = JSON.parse(
      JSON.stringify(rowsOf(await executor.call(acme, lookup, { order_id: 11 }, alice))),
    ) as unknown;
    const { pid } = await onTheConnection();
    await db.handle.withSession((s) => s.query('SELECT pg_terminate_backend($1)', [pid]));
    // the call that meets the dead connection may fail as unavailable, never answer wrongly
    const meets = await executor.call(acme, lookup, { order_id: 11 }, alice);
    if (meets.is_error) expect(meets.error.code).toBe('DATA_UNAVAILABLE');
    else expect(JSON.parse(JSON.stringify(meets.result.rows))).toEqual(expected);
    expect(
      JSON.parse(
        JSON.stringify(rowsOf(await executor.call(acme, lookup, { order_id: 11 }, alice))),
      ),
    ).toEqual(expected);
    expect((await onTheConnection()).pid).not.toBe(pid);
  });

  it("recovers when a schema change altered a reused statement's result type", async () => {
    const wide = new ReportTool({
      ...lookup.report,
      id: 'wide',
      sqlTemplate: 'SELECT p.* FROM products p WHERE p.id = :order_id',
    });
    const before = rowsOf(await executor.call(acme, wide, { order_id: 3 }, alice));
    await db.handle.withSession((s) =>
      s.script('ALTER TABLE tenant_acme.products ADD COLUMN h17_extra int DEFAULT 5'),
    );
    try {
      const after = rowsOf(await executor.call(acme, wide, { order_id: 3 }, alice));
      expect(after).toEqual(before.map((row) => ({ ...row, h17_extra: 5 })));
      expect(rowsOf(await executor.call(acme, wide, { order_id: 3 }, alice))).toEqual(after);
    } finally {
      await db.handle.withSession((s) =>
        s.script('ALTER TABLE tenant_acme.products DROP COLUMN h17_extra'),
      );
    }
  });

  it("lets SQL past the guard neither replace, drop nor list the connection's statements", async () => {
    rowsOf(await executor.call(acme, lookup, { order_id: 7 }, alice));
    const { pid, names } = await onTheConnection();
    expect(names).toContain(nameOf(acme, lookup).name);
    const poison = `PREPARE ${nameOf(acme, lookup).name} AS SELECT 666`;
    for (const sql of ['DEALLOCATE ALL', poison]) {
      await expect(executor.runReadOnly(acme.tenant, sql, [])).rejects.toThrow(
        /only a SELECT may run here/,
      );
    }
    // what they did went with their connection
    expect((await onTheConnection()).pid).not.toBe(pid);
    rowsOf(await executor.call(acme, lookup, { order_id: 7 }, alice));
    await expect(
      executor.runReadOnly(acme.tenant, 'SELECT name, statement FROM pg_prepared_statements', []),
    ).rejects.toThrow(/permission denied/);
    await expect(
      executor.runReadOnly(acme.tenant, 'SELECT * FROM pg_catalog.pg_prepared_statement()', []),
    ).rejects.toThrow(/permission denied/);
  });
});
