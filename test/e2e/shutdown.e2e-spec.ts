import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { eventually } from '../support/eventually';
import { mintToken, TEST_JWT_SECRET } from '../support/gateway';
import { PrivateRedis } from '../support/redis-server';
import { createTestDatabase } from '../support/test-database';
import type { TestDatabase } from '../support/test-database';

const ROOT = path.resolve(__dirname, '../..');
// the built gateway (Nest's DI needs tsc's decorator metadata, which tsx does not emit)
const MAIN = path.join(ROOT, 'dist/apps/gateway/src/main.js');

/**
 * SIGTERM to a real gateway process during a slow call: the call completes with its rows,
 * /readyz and new requests are refused cleanly, the LISTEN connection and pools are
 * released, and the process exits 0.
 */
describe('graceful shutdown on SIGTERM (e2e, child process)', () => {
  let db: TestDatabase;
  let child: ChildProcess | undefined;
  let locker: pg.Client | undefined;

  beforeAll(async () => {
    // what `npm start` does: build when dist is missing or older than the sources
    execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-if-needed.js')], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    db = await createTestDatabase();
  }, 300_000);
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await locker?.end().catch(() => undefined);
    await db.drop();
  });

  it('lets the slow call finish, refuses new work, releases everything and exits 0', async () => {
    const port = await PrivateRedis.freePort();
    const base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [MAIN], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        PORT: String(port),
        DATABASE_URL: db.url,
        AUTH_JWT_SECRET: TEST_JWT_SECRET,
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'pretty',
        SHUTDOWN_GRACE_MS: '20000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child?.once('exit', resolve));

    await eventually(
      async () => {
        const res = await fetch(`${base}/readyz`);
        if (res.status !== 200) throw new Error(`readyz ${res.status}`);
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    const token = await mintToken({ tenant: 'acme', user: 'alice', roles: ['analyst'] });

    // the slow call: its query waits on a lock the test holds
    locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE tenant_acme.orders IN ACCESS EXCLUSIVE MODE');
    const slow = fetch(`${base}/v1/tools/query_report_sales_by_region/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ arguments: { region: 'east' } }),
    });
    // (a transaction sees one snapshot of pg_stat_activity: the locker cannot watch it)
    const activity = async () => {
      const watcher = new pg.Client({ connectionString: db.url });
      await watcher.connect();
      try {
        const { rows } = await watcher.query<{
          application_name: string;
          wait_event_type: string | null;
        }>(
          `SELECT application_name, wait_event_type FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()
              AND pid <> ${Number((locker as unknown as { processID: number }).processID)}`,
        );
        return rows;
      } finally {
        await watcher.end();
      }
    };
    // a cold process builds the tenant's catalog first
    await eventually(
      async () => {
        if (!(await activity()).some((a) => a.wait_event_type === 'Lock'))
          throw new Error(
            `the call has not reached the database yet: ${JSON.stringify(await activity())}`,
          );
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect((await activity()).some((a) => a.application_name === 'gateway-listener')).toBe(true);

    child.kill('SIGTERM');
    // new requests are refused cleanly: the listener is closed (or a 503 on a kept-alive socket)
    await eventually(async () => {
      const refused = await fetch(`${base}/readyz`).then(
        (res) => res.status,
        () => 'connection refused',
      );
      if (refused !== 503 && refused !== 'connection refused')
        throw new Error(`still accepting: ${refused}`);
    });
    expect(child.exitCode).toBeNull(); // still running: it waits for the slow call

    await locker.query('ROLLBACK');
    const res = await slow;
    expect(res.status).toBe(200);
    const body = (await res.json()) as { is_error: boolean; result: { rows: unknown[] } };
    expect(body.is_error).toBe(false);
    expect(body.result.rows.length).toBeGreaterThan(0);

    expect(await exited).toBe(0);
    // nothing of it is left in the database: pools and the LISTEN connection are closed
    await eventually(async () => {
      const left = await activity();
      if (left.length > 0)
        throw new Error(`left: ${left.map((a) => a.application_name).join(', ')}`);
    });
    expect(output).toContain('shutdown: in-flight requests finished');
    expect(output).toContain('shutdown: closed');
  }, 120_000);

  it('SIGTERM to `npm start` reaches the gateway: it drains and exits, nothing keeps serving', async () => {
    const port = await PrivateRedis.freePort();
    const base = `http://127.0.0.1:${port}`;
    // npm itself, as a process manager would start it; prestart finds dist up to date
    const npm = spawn('npm', ['start'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_ENV: 'test',
        PORT: String(port),
        DATABASE_URL: db.url,
        AUTH_JWT_SECRET: TEST_JWT_SECRET,
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'pretty',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const npmExited = new Promise<number | null>((resolve) => npm.once('exit', resolve));
    try {
      await eventually(
        async () => {
          const res = await fetch(`${base}/readyz`);
          if (res.status !== 200) throw new Error(`readyz ${res.status}`);
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      npm.kill('SIGTERM');
      await npmExited;
      // the gateway got the signal too: it logged its drain and no longer listens
      await eventually(async () => {
        const state = await fetch(`${base}/healthz`).then(
          (res) => `still serving (${res.status})`,
          () => 'gone',
        );
        if (state !== 'gone') throw new Error(state);
      });
      expect(output).toContain('shutdown: draining');
    } finally {
      if (npm.exitCode === null) npm.kill('SIGKILL');
    }
  }, 120_000);
});
