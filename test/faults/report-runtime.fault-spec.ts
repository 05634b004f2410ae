import { sql } from 'kysely';
import { callTool, listedTools } from '../support/containment';
import { changeCatalog, startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const groot: TokenClaims = { tenant: 'globex', user: 'groot', roles: ['admin'] };

/** The tenant's other tools, with arguments that answer rows. */
const NEIGHBOURS: Array<[string, Record<string, unknown>]> = [
  ['query_report_revenue_by_month', { year: 2025 }],
  ['query_report_sales_by_region', { region: 'east' }],
];

/**
 * Fault: a report whose template passes every check (valid SQL, allowed tables, no
 * amplifier) but fails when Postgres runs it: a statement past its timeout, a division by
 * zero, a cast of data that does not fit. That tool answers a coded error the model can read,
 * with no SQL, data source or stack in it; every other tool of the tenant, and every other
 * tenant, answers as before.
 */
describe('faults: a report that fails at run time', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  const addReport = (id: string, template: string, timeoutMs: number | null = null) =>
    changeCatalog(gw, 'acme', (db) =>
      sql`INSERT INTO gateway.reports
            (tenant_id, id, name, description, sql_template, category, statement_timeout_ms)
          VALUES ('acme', ${id}, ${id}, 'A report that fails when it runs.', ${template}, 'sales', ${timeoutMs})`.execute(
        db,
      ),
    );

  it.each([
    [
      'a statement past its statement timeout (100 ms for a 2.5-billion-row join)',
      'TIMEOUT',
      'past_timeout',
      'SELECT count(*) AS n FROM orders a CROSS JOIN orders b',
      100,
      /took longer than 0\.1 s and was stopped; narrow the filters/,
    ],
    [
      'a division by zero',
      'QUERY_FAILED',
      'divides_by_zero',
      'SELECT count(*) / (count(*) - count(*)) AS n FROM orders',
      null,
      /division by zero/,
    ],
    [
      'a bad cast of stored data',
      'QUERY_FAILED',
      'bad_cast',
      'SELECT o.region::integer AS n FROM orders o',
      null,
      /invalid input syntax for type integer/,
    ],
  ])(
    '%s: that tool answers %s; the tenant and its neighbours are untouched',
    async (_name, code, id, template, timeoutMs, message) => {
      const before = await Promise.all(
        NEIGHBOURS.map(async ([tool, args]) => (await callTool(gw, root, tool, args)).body.result),
      );
      const otherTenant = await listedTools(gw, groot);
      await addReport(id, template, timeoutMs);
      expect(await listedTools(gw, root)).toContain(`query_report_${id}`);

      const failed = await callTool(gw, root, `query_report_${id}`);
      expect(failed.status).toBe(200);
      expect(failed.body).toMatchObject({
        is_error: true,
        error: { code, message: expect.stringMatching(message) },
      });
      const said = JSON.stringify(failed.body);
      for (const leak of [
        'FROM orders',
        'count(',
        'tenant_acme',
        'postgres:',
        'password',
        'gw_test',
      ])
        expect(said).not.toContain(leak);

      // the same tool fails the same way again: nothing is left broken by the first failure
      expect((await callTool(gw, root, `query_report_${id}`)).body).toMatchObject({
        error: { code },
      });
      // every other tool of the tenant answers what it answered before
      const after = await Promise.all(
        NEIGHBOURS.map(async ([tool, args]) => (await callTool(gw, root, tool, args)).body),
      );
      after.forEach((body, i) =>
        expect(body).toMatchObject({ is_error: false, result: before[i] }),
      );
      expect(await listedTools(gw, groot)).toEqual(otherTenant);
      const globex = await callTool(gw, groot, 'query_report_sales_by_region', { region: 'east' });
      expect(globex.body).toMatchObject({ is_error: false });
    },
  );
});
