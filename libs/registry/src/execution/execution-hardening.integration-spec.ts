import { connectPostgres } from '@app/db';
import type { DatabaseHandle } from '@app/db';
import { createTestDatabase } from '../../../../test/support/test-database';
import type { TestDatabase } from '../../../../test/support/test-database';
import { ReportExecutor } from './report-executor';
import { DEFAULT_REGISTRY_OPTIONS } from '../tokens';

const ACME = { id: 'acme', dataSchema: 'tenant_acme' };

/**
 * SQL that somehow got past the guard still meets the database layer: READ ONLY, the
 * tenant's SELECT-only role, revoked functions, extended protocol, pinned search_path.
 * Each case calls the executor directly, as a guard bug would.
 */
describe('execution hardening (real Postgres, guard bypassed)', () => {
  let db: TestDatabase;
  let single: DatabaseHandle;
  let executor: ReportExecutor;

  beforeAll(async () => {
    db = await createTestDatabase();
    // One connection, so a temp table made on it is visible to the executor's session.
    single = connectPostgres(db.url, 1);
    executor = new ReportExecutor(single, {
      ...DEFAULT_REGISTRY_OPTIONS,
      statementTimeoutMs: 2000,
    });
  });
  afterAll(async () => {
    await single.close();
    await db.drop();
  });

  const run = (sql: string) => executor.runReadOnly(ACME, sql, []);

  it('refuses set_config, which READ ONLY alone allows', async () => {
    await expect(run("SELECT set_config('app.tenant_id', 'globex', true)")).rejects.toThrow(
      'permission denied for function set_config',
    );
  });

  it('refuses pg_sleep at once instead of sleeping until the timeout', async () => {
    await expect(run('SELECT pg_sleep(30)')).rejects.toThrow(
      'permission denied for function pg_sleep',
    );
  });

  it.each([
    ['SELECT pg_advisory_lock(42)', 'pg_advisory_lock'],
    ["SELECT pg_notify('gateway_catalog', 'acme')", 'pg_notify'],
    ["SELECT lo_from_bytea(0, 'x'::bytea)", 'lo_from_bytea'],
    ['SELECT pg_terminate_backend(pg_backend_pid())', 'pg_terminate_backend'],
    ["SELECT query_to_xml('SELECT 1', true, true, '')", 'query_to_xml'],
  ])('refuses %s', async (sql, fn) => {
    await expect(run(sql)).rejects.toThrow(`permission denied for function ${fn}`);
  });

  it('refuses a multi-statement string that would end the read-only transaction', async () => {
    await expect(
      run('SELECT 1; COMMIT; BEGIN READ WRITE; CREATE TEMP TABLE pwn(a int); COMMIT'),
    ).rejects.toThrow('cannot insert multiple commands into a prepared statement');
  });

  it("cannot read another tenant's tables, even schema-qualified", async () => {
    await expect(run('SELECT count(*) FROM tenant_globex.orders')).rejects.toThrow(
      'permission denied for schema tenant_globex',
    );
  });

  it('cannot read metadata tables', async () => {
    await expect(run('SELECT sql_template FROM gateway.reports')).rejects.toThrow(
      /permission denied/,
    );
  });

  it('is not fooled by a temp table that shadows a real one', async () => {
    await single.withSession((s) => s.query('CREATE TEMP TABLE orders AS SELECT 1 AS id'));
    const { rows } = await run('SELECT count(*)::int AS n FROM orders');
    expect(rows[0].n).toBe(50_000);
  });

  it('refuses writes inside the read-only transaction', async () => {
    await expect(
      run('WITH d AS (UPDATE orders SET total_amount = 0 RETURNING 1) SELECT count(*) FROM d'),
    ).rejects.toThrow(/read-only transaction|permission denied/);
  });
});
