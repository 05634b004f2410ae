import { connectPostgres, ResultTooLargeError } from '@app/db';
import type { DatabaseHandle } from '@app/db';
import { createTestDatabase } from '../../../../test/support/test-database';
import type { TestDatabase } from '../../../../test/support/test-database';
import { initSqlParser, ReportTool } from '@app/templates';
import type { Principal } from '../access/principal';
import { ReportExecutor } from './report-executor';
import { standaloneCatalog } from '../testing';
import { DEFAULT_REGISTRY_OPTIONS } from '../tokens';

const ACME = { id: 'acme', dataSchema: 'tenant_acme' };
const CAP = 64 * 1024;
const alice: Principal = { tenantId: 'acme', userId: 'alice', roles: ['analyst'], claims: {} };
/** 5 MB in one value, built by SQL the guard allows (no amplifier past its bound) */
const HUGE_ROW = "SELECT string_agg(lpad(o.status, 100), '') AS blob FROM orders o";

/**
 * Results are read row by row against the byte cap, and the session's setup and the query go in
 * one write, one implicit transaction ended by its Sync: what the one-round-trip executor must
 * keep of the old guarantees.
 */
describe('guarded read (real Postgres)', () => {
  let db: TestDatabase;
  let single: DatabaseHandle;
  let executor: ReportExecutor;

  beforeAll(async () => {
    db = await createTestDatabase();
    // one connection: each test also shows that what happened before left it clean
    single = connectPostgres(db.url, 1);
    executor = new ReportExecutor(single, {
      ...DEFAULT_REGISTRY_OPTIONS,
      statementTimeoutMs: 15_000,
      maxResultBytes: CAP,
    });
  });
  afterAll(async () => {
    await single.close();
    await db.drop();
  });

  const session = () =>
    single.withSession((s) =>
      s.query(
        `SELECT current_user AS who, current_setting('transaction_read_only') AS read_only,
                current_setting('work_mem') AS work_mem, pg_current_xact_id_if_assigned() AS xact`,
      ),
    );

  it('stops a single huge row near the cap instead of buffering it whole', async () => {
    const before = (await session()).rows[0];
    const failure = await executor.runReadOnly(ACME, HUGE_ROW, [], CAP).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ResultTooLargeError);
    const tooLarge = failure as ResultTooLargeError;
    expect(tooLarge.limit).toBe(CAP);
    // what was received when the read stopped: a few socket chunks past twice the cap, not 5 MB
    expect(tooLarge.atLeastBytes).toBeGreaterThan(CAP);
    expect(tooLarge.atLeastBytes).toBeLessThan(2 * CAP + 64 * 1024 + 1024 * 1024);
    // the connection was dropped; the next session is a fresh, clean one
    expect((await session()).rows[0]).toEqual(before);
  });

  it('stops keeping rows past the cap, and the next read works', async () => {
    const failure = await executor
      .runReadOnly(ACME, 'SELECT id, status, region, order_date FROM orders', [], CAP)
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ResultTooLargeError);
    expect((failure as ResultTooLargeError).atLeastBytes).toBeLessThan(CAP + 1024);
    const ok = await executor.runReadOnly(ACME, 'SELECT count(*)::int AS n FROM orders', []);
    expect(ok.rows).toEqual([{ n: 50_000 }]);
  });

  it('answers a report call past the cap with RESULT_TOO_LARGE, the page never built', async () => {
    await initSqlParser();
    const catalog = standaloneCatalog(db.handle, { staleAfterMs: 0 });
    const { catalog: tenant, tool } = await catalog.resolve(alice, 'query_report_order_lookup');
    if (tool.kind !== 'report') throw new Error('order_lookup is not a report');
    const huge = new ReportTool({
      ...tool.report.report,
      id: 'huge',
      sqlTemplate: `${HUGE_ROW} WHERE o.id > 0 OR o.id = :order_id`,
    });
    const outcome = await executor.call(tenant, huge, { order_id: 1 }, alice);
    expect(outcome).toEqual({
      tool: 'query_report_huge',
      is_error: true,
      error: {
        code: 'RESULT_TOO_LARGE',
        message: expect.stringMatching(
          /^this page is more than \d+ bytes, over the 65536-byte limit/,
        ),
      },
    });
  });

  it('applies work_mem and the role inside the read, and leaves the session as it was', async () => {
    const before = (await session()).rows[0];
    const inside = await executor.runReadOnly(
      ACME,
      "SELECT current_user AS who, current_setting('work_mem') AS work_mem, current_setting('transaction_read_only') AS read_only",
      [],
    );
    expect(inside.rows).toEqual([{ who: 'gw_reader_acme', work_mem: '8MB', read_only: 'on' }]);
    expect((await session()).rows[0]).toEqual(before);
  });

  it('never runs the query when the setup fails (a tenant without a reader role)', async () => {
    const failure = await executor
      .runReadOnly({ id: 'nobody', dataSchema: 'tenant_acme' }, 'SELECT count(*) FROM orders', [])
      .catch((e: unknown) => e);
    expect(String(failure)).toMatch(/role "gw_reader_nobody" does not exist/);
    const state = (await session()).rows[0];
    expect(state.who).not.toMatch(/^gw_reader_/);
    expect(state.read_only).toBe('off');
  });

  it("keeps the connection after a statement's own error, its transaction and settings ended by the Sync", async () => {
    const pid = () => single.withSession((s) => s.query('SELECT pg_backend_pid() AS pid'));
    const before = (await pid()).rows[0].pid as number;
    const clean = (await session()).rows[0];
    await expect(
      executor.runReadOnly(ACME, 'SELECT count(*) / 0 AS n FROM orders', []),
    ).rejects.toThrow(/division by zero/);
    // the same backend (no reconnect, no second round trip to roll back), as it was
    expect((await pid()).rows[0].pid).toBe(before);
    expect((await session()).rows[0]).toEqual(clean);
  });

  it('gives the connection up when a transaction command got past the guard, no transaction left open', async () => {
    const pid = () => single.withSession((s) => s.query('SELECT pg_backend_pid() AS pid'));
    const before = (await pid()).rows[0].pid as number;
    const clean = (await session()).rows[0];
    await expect(executor.runReadOnly(ACME, 'BEGIN', [])).rejects.toThrow(
      /only a SELECT may run here/,
    );
    // the backend whose transaction the BEGIN left open is gone: a new one, as clean as before
    expect((await pid()).rows[0].pid).not.toBe(before);
    expect((await session()).rows[0]).toEqual(clean);
  });

  it('refuses SET ROLE back to the gateway user inside the query', async () => {
    await expect(
      executor.runReadOnly(ACME, "SELECT set_config('role', 'postgres', true)", []),
    ).rejects.toThrow(/permission denied/);
    expect((await session()).rows[0].who).not.toMatch(/^gw_reader_/);
  });
});
