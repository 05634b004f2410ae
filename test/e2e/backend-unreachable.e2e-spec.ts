import pg from 'pg';
import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { TokenClaims } from '../support/gateway';
import { TcpProxy } from '../support/tcp-proxy';
import { createTestDatabase } from '../support/test-database';

const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const REPORT = {
  name: 'Outage probe',
  description: 'written while the database is away, then again',
  sql_template: 'SELECT count(*) AS n FROM orders',
  category: 'sales',
};

describe('the database away or busy (e2e)', () => {
  it('answers an admin write with a coded 503 and Retry-After while Postgres is gone, and takes it after', async () => {
    const db = await createTestDatabase();
    const url = new URL(db.url);
    const proxy = new TcpProxy(url.hostname, Number(url.port || 5432));
    await proxy.start();
    url.host = `127.0.0.1:${proxy.port}`;
    const gw = await startGateway({ DATABASE_URL: url.toString() }, { ...db, url: url.toString() });
    const put = () =>
      gw.request('/v1/admin/reports/outage_probe', { method: 'PUT', as: root, json: REPORT });
    try {
      // the catalog is warm, so the write gets as far as its own transaction
      expect((await gw.request('/v1/admin/reports', { as: root })).status).toBe(200);
      await proxy.stop();
      const refused = await put();
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      const body = (await refused.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('DATABASE_UNAVAILABLE');
      expect(body.error.message).toMatch(/unreachable right now; try again/);
      expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|postgres(ql)?:\/\/|    at /);
      await proxy.start(proxy.port);
      const stored = await eventually(async () => {
        const res = await put();
        expect(res.status).toBe(201);
        return res;
      });
      expect(stored.status).toBe(201);
    } finally {
      await gw.close();
      await proxy.stop();
      await db.drop();
    }
  });

  it('stays ready while every pooled connection is held by a report query', async () => {
    const gw = await startGateway({ DB_POOL_SIZE: '1' });
    const locker = new pg.Client({ connectionString: gw.database.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE tenant_acme.orders IN ACCESS EXCLUSIVE MODE');
    try {
      const held = gw.request('/v1/tools/query_report_sales_by_region/call', {
        method: 'POST',
        as: alice,
        json: { arguments: { region: 'east' } },
      });
      // the one pooled connection now waits on the lock
      await eventually(async () => {
        const { rows } = await locker.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        expect(Number(rows[0].n)).toBe(1);
      });
      const ready = await gw.request('/readyz');
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { database: string }).database).toBe('up');
      await locker.query('ROLLBACK');
      expect((await held).status).toBe(200);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
      await gw.close();
    }
  });
});
