import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startGateway } from '../support/gateway';
import type { RunningGateway, TokenClaims } from '../support/gateway';

/**
 * The first call docs/getting-started.md shows, made as it says (alice, analyst), answers
 * what the page prints; docs/clients/README.md's rows of the same report are the real ones.
 * The figures come from the demo seed (db/demo/demo-data.ts): a change there shows up here.
 */
const alice: TokenClaims = { tenant: 'acme', user: 'alice', roles: ['analyst'] };
const docs = (file: string) => readFile(path.resolve(__dirname, '../../docs', file), 'utf8');

describe('the documented first call (e2e, real Postgres)', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  const call = async (args: unknown) =>
    (await (
      await gw.request('/v1/tools/query_report_sales_by_region/call', {
        method: 'POST',
        as: alice,
        json: { arguments: args },
      })
    ).json()) as { result: { rows: unknown[] } };

  it('answers the arguments of getting-started.md with the rows it prints', async () => {
    const page = await docs('getting-started.md');
    const sent = /-d '(\{"arguments".*?\})' \\\n/.exec(page);
    const printed =
      /```json\n(\{\n {2}"tool": "query_report_sales_by_region"[\s\S]*?\n\})\n```/.exec(page);
    // the page still shows the call and its answer where a reader finds them
    expect(sent?.[1]).toMatch(/^\{"arguments"/);
    expect(printed?.[1]).toMatch(/"tool": "query_report_sales_by_region"/);
    const body = JSON.parse(sent![1]) as { arguments: unknown };
    const expected = JSON.parse(printed![1]) as { result: unknown };
    expect((await call(body.arguments)).result).toEqual(expected.result);
  });

  it("prints the real rows of sales_by_region in the clients' page", async () => {
    const page = await docs('clients/README.md');
    const lines = [...page.matchAll(/^ {2}(\["[a-z]+",\d+,[\d.]+\])$/gm)].map(
      (m) => JSON.parse(m[1]) as [string, number, number],
    );
    expect(lines.length).toBeGreaterThan(0);
    const rows = (await call({})).result.rows as Array<Record<string, unknown>>;
    for (const [region, count, amount] of lines)
      expect(rows).toContainEqual({ region, order_count: count, total_amount: amount });
  });
});
