import { Metrics } from '@app/registry';
import { sql } from 'kysely';
import { callTool, listedTools } from '../support/containment';
import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const groot: TokenClaims = { tenant: 'globex', user: 'groot', roles: ['admin'] };

/**
 * Fault: the gateway's LISTEN connection is killed on the server (pg_terminate_backend, as an
 * operator or a failover would). Reports added by plain SQL afterwards are still listed, the
 * listener comes back by itself on a new connection, and nothing else notices.
 */
describe('faults: the LISTEN connection killed', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  const db = () => gw.database.handle.db;
  const listenerPids = async () =>
    (
      await sql<{ pid: number }>`SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND query = 'LISTEN "gateway_catalog"'`.execute(db())
    ).rows.map((r) => r.pid);
  const hotAdd = (id: string) =>
    sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
        VALUES ('acme', ${id}, ${id}, 'Added by plain SQL after the listener was killed.',
                'SELECT count(*) AS n FROM orders', 'sales')`.execute(db());

  it('a report hot-added afterwards is still listed; the listener comes back and serves the next change', async () => {
    const before = await listedTools(gw, root);
    const otherTenant = await listedTools(gw, groot);
    const [killed] = await listenerPids();
    expect(killed).toEqual(expect.any(Number));
    const metrics = gw.app.get(Metrics);
    expect(metrics.value('gateway_catalog_listener_up')).toBe(1);

    const { rows } = await sql<{
      ok: boolean;
    }>`SELECT pg_terminate_backend(${killed}::int) AS ok`.execute(db());
    expect(rows[0].ok).toBe(true);
    await hotAdd('after_listen_killed');
    await eventually(async () =>
      expect(await listedTools(gw, root)).toEqual(
        [...before, 'query_report_after_listen_killed'].sort(),
      ),
    );
    expect((await callTool(gw, root, 'query_report_after_listen_killed')).body).toMatchObject({
      is_error: false,
      result: { rows: [{ n: expect.any(Number) }] },
    });

    // the listener is back on a connection of its own
    await eventually(
      async () => {
        expect(metrics.value('gateway_catalog_listener_up')).toBe(1);
        const pids = await listenerPids();
        expect(pids).toHaveLength(1);
        expect(pids[0]).not.toBe(killed);
      },
      { timeoutMs: 10_000 },
    );
    await hotAdd('after_listen_back');
    await eventually(async () =>
      expect(await listedTools(gw, root)).toContain('query_report_after_listen_back'),
    );
    expect(await listedTools(gw, groot)).toEqual(otherTenant);
    const sales = await callTool(gw, groot, 'query_report_sales_by_region', { region: 'east' });
    expect(sales.body).toMatchObject({ is_error: false });
  });
});
