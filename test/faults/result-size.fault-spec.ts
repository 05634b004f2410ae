import { sql } from 'kysely';
import { eventually } from '../support/eventually';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

const root: TokenClaims = { tenant: 'acme', user: 'root', roles: ['admin'] };
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const gina: TokenClaims = { tenant: 'globex', user: 'gina', roles: ['analyst'] };

/** ~20 MB in one row, by SQL the guard admits (lpad's length is a literal within its bound). */
const BIG_ROW = "SELECT string_agg(lpad(o.status, 400), '') AS blob FROM orders o";
const CAP = 64 * 1024;

interface CallBody {
  is_error: boolean;
  error?: { code: string; message: string };
  result?: { rows: unknown[] };
}

/**
 * Fault: a report whose result is enormous. The amplifier templates never reach the database;
 * a large result that does is stopped near the byte cap while it arrives, so the gateway's
 * memory stays flat and every other report and tenant keeps working.
 */
describe('fault: a result far over the byte cap', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await startGateway({
      REPORT_MAX_RESULT_BYTES: String(CAP),
      REPORT_STATEMENT_TIMEOUT_MS: '30000',
    });
  });
  afterAll(() => gw.close());

  /** Inserts the reports by plain SQL in one transaction, as an operator would. */
  const insertReports = (reports: Array<[id: string, template: string]>) =>
    gw.database.handle.db.transaction().execute(async (trx) => {
      for (const [id, template] of reports) {
        await sql`INSERT INTO gateway.reports (tenant_id, id, name, description, sql_template, category)
                  VALUES ('acme', ${id}, ${id}, 'a fault', ${template}, 'sales')`.execute(trx);
        await sql`INSERT INTO gateway.report_fields (tenant_id, report_id, name, type)
                  VALUES ('acme', ${id}, 'blob', 'string')`.execute(trx);
      }
    });

  /** Alice's tools once the catalog shows `id` (changes arrive by NOTIFY). */
  const toolNamesWith = (id: string) =>
    eventually(async () => {
      const names = await toolNames(alice);
      expect(names).toContain(`query_report_${id}`);
      return names;
    });

  const call = async (who: TokenClaims, tool: string, args: unknown = {}) => {
    const res = await gw.request(`/v1/tools/${tool}/call`, {
      method: 'POST',
      as: who,
      json: { arguments: args },
    });
    const text = await res.text();
    expect(text).not.toMatch(/\n\s+at /); // no stack trace, whatever the status
    return { status: res.status, body: JSON.parse(text) as CallBody };
  };

  const toolNames = async (who: TokenClaims) => {
    const res = await gw.request('/v1/tools', { as: who });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { tools: Array<{ function: { name: string } }> };
    return body.tools.map((t) => t.function.name);
  };

  it.each([
    ['repeat', "SELECT repeat('x', 400000000) AS blob"],
    ['lpad', "SELECT lpad('x', 400000000) AS blob"],
    ['generate_series', "SELECT string_agg('x', '') AS blob FROM generate_series(1, 400000000)"],
    ['array_fill', "SELECT array_fill('x'::text, ARRAY[400000000])::text AS blob"],
  ])(
    'an amplifier template (%s) is refused through the API and not served by SQL',
    async (fn, template) => {
      const res = await gw.request(`/v1/admin/reports/bomb_${fn}`, {
        method: 'PUT',
        as: root,
        json: {
          name: 'bomb',
          description: 'An output amplifier.',
          sql_template: template,
          category: 'sales',
          status: 'active',
          filters: [],
          fields: [{ name: 'blob', type: 'string', description: 'x' }],
        },
      });
      expect(res.status).toBe(422);
      expect(await res.text()).toMatch(new RegExp(`${fn}: .*(10,000|1,000,000)`));

      // a harmless report in the same transaction shows when the change has been loaded
      await insertReports([
        [`sql_bomb_${fn}`, template],
        [`sibling_${fn}`, "SELECT 'ok' AS blob"],
      ]);
      const names = await toolNamesWith(`sibling_${fn}`);
      expect(names).not.toContain(`query_report_sql_bomb_${fn}`);
      expect(names).toContain('query_report_order_lookup');
      expect((await call(alice, `query_report_sql_bomb_${fn}`)).status).toBe(404);
    },
  );

  it('stops a 20 MB row near the cap: RESULT_TOO_LARGE, memory flat, others unaffected', async () => {
    await insertReports([['big_row', BIG_ROW]]);
    await toolNamesWith('big_row');
    const baseline = process.memoryUsage();
    let peakRss = baseline.rss;
    let peakBuffers = baseline.arrayBuffers;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peakRss = Math.max(peakRss, now.rss);
      peakBuffers = Math.max(peakBuffers, now.arrayBuffers);
    }, 2);
    try {
      const [big, other, lookup] = await Promise.all([
        call(alice, 'query_report_big_row'),
        call(gina, 'query_report_order_lookup', { order_id: 7 }),
        call(alice, 'query_report_order_lookup', { order_id: 7 }),
      ]);
      expect(big.status).toBe(200);
      expect(big.body.is_error).toBe(true);
      expect(big.body.error?.code).toBe('RESULT_TOO_LARGE');
      expect(big.body.error?.message).toMatch(/over the 65536-byte limit/);
      for (const ok of [other, lookup]) {
        expect(ok.status).toBe(200);
        expect(ok.body.is_error).toBe(false);
        expect(ok.body.result?.rows.length).toBeGreaterThan(0);
      }
    } finally {
      clearInterval(sampler);
    }
    // buffering the 20 MB row whole would hold >= 20 MB of Buffers and more as a JS string
    expect(peakBuffers - baseline.arrayBuffers).toBeLessThan(4 * 1024 * 1024);
    expect(peakRss - baseline.rss).toBeLessThan(15 * 1024 * 1024);
    // and the pool recovered: the same report again, then a normal call
    expect((await call(alice, 'query_report_big_row')).body.error?.code).toBe('RESULT_TOO_LARGE');
    expect((await call(alice, 'query_report_order_lookup', { order_id: 8 })).body.is_error).toBe(
      false,
    );
  });
});
