/**
 * EXPLAIN (ANALYZE, BUFFERS) of the reads a big tenant's first list makes: the caller's
 * reach (CatalogRepository.loadReports with { reach }: by category and id) and the count
 * that decides a partial load, on a tenant of N distinct reports (bench/lib/synthetic).
 *
 *   npx tsx bench/explain-reach.ts [N, default 100000]
 *
 * The SQL is the repository's own, compiled by Kysely, not a copy.
 */
import pg from 'pg';
import { CatalogRepository } from '@app/registry';
import { runMain, withScratchDatabase } from './lib/scratch-database';
import { addReports, addTenants } from './lib/synthetic';

const TENANT = 'explainbig';

/** The plan of one statement, run (EXPLAIN ANALYZE), with its buffers. */
async function explained(client: pg.Client, statement: string, params: unknown[]): Promise<string> {
  const { rows } = await client.query<{ 'QUERY PLAN': string }>(
    `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${statement}`,
    params,
  );
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 100_000);
  await withScratchDatabase('gw_explain', 2, async (url, handle) => {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await addTenants(client, [TENANT]);
      await addReports(client, [TENANT], 1, n);
      await client.query('ANALYZE gateway.reports, gateway.report_filters, gateway.report_fields');
      // capture the SQL the repository sends
      const sent: Array<{ sql: string; params: unknown[] }> = [];
      const repo = new CatalogRepository(handle);
      const query = pg.Client.prototype.query;
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const [text, values] = args as [unknown, unknown[]];
        if (typeof text === 'string' && /gateway/.test(text))
          sent.push({ sql: text, params: values ?? [] });
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      for (const part of [
        { categories: ['vis5'], ids: [] },
        { categories: ['vis5'], ids: ['r050000'] },
      ]) {
        const t0 = performance.now();
        const reach = await repo.loadReports(TENANT, { reach: part });
        const ms = (performance.now() - t0).toFixed(1);
        console.log(`reach read ${JSON.stringify(part)}: ${reach.length} reports in ${ms} ms`);
      }
      pg.Client.prototype.query = query;
      for (const { sql, params } of sent) {
        console.log(
          `\n-- ${sql.replace(/\s+/g, ' ').slice(0, 160)}...\n-- params ${JSON.stringify(params)}`,
        );
        console.log(await explained(client, sql, params));
      }
    } finally {
      await client.end().catch(() => undefined);
    }
  });
}

runMain(main);
