/**
 * What each report of a big tenant retains in memory, through the real catalog code: a
 * tenant of N distinct templates (bench/lib/synthetic) is read as a background load reads it
 * (CatalogLoader.loadComplete: keyset pages, string pool), every template judged by the SQL
 * guard (ReportAdmission's background judging), then every report admitted (its tool
 * rendered, as a list does). Heap used and RSS after a full GC at each step, per report.
 *
 *   [PAGE_SIZE=2000] node --expose-gc -r tsx/cjs bench/heap-per-report.ts [N, default 20000] [snapshot.heapsnapshot]
 *
 * With a second argument it also writes a heap snapshot once every report is admitted
 * (open it in Chrome DevTools, or summarise it with bench/lib/heap-summary.ts).
 */
import { writeHeapSnapshot } from 'node:v8';
import { initSqlParser } from '@app/templates';
import pg from 'pg';
import { CatalogRepository, Metrics, SharedCache } from '@app/registry';
import { CatalogLoader, ReportAdmission } from '@app/registry/testing';
import { runMain, withScratchDatabase } from './lib/scratch-database';
import { addReports, addTenants } from './lib/synthetic';

const TENANT = 'heapbig';

interface Memory {
  heap: number;
  /** the V8 heap's committed size (used, free and fragmented) */
  committed: number;
  external: number;
  rss: number;
}

function measure(): Memory {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, committed: m.heapTotal, external: m.external, rss: m.rss };
}

function line(step: string, from: Memory, to: Memory, n: number): string {
  const per = (k: keyof Memory) => Math.round((to[k] - from[k]) / n);
  const mb = (k: keyof Memory) => ((to[k] - from[k]) / 2 ** 20).toFixed(1);
  return `| ${step} | ${per('heap')} B (${mb('heap')} MB) | ${per('committed')} B | ${per('external')} B | ${per('rss')} B (${mb('rss')} MB) |`;
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 20_000);
  const snapshot = process.argv[3];
  await withScratchDatabase('gw_heap', 4, async (url, handle) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await addTenants(client, [TENANT]);
    await addReports(client, [TENANT], 1, n);
    await client.end();
    await initSqlParser();
    const metrics = new Metrics();
    const admission = new ReportAdmission(metrics, null, null);
    const repository = new CatalogRepository(handle);
    const loader = new CatalogLoader(
      repository,
      new SharedCache(metrics, null),
      admission,
      metrics,
      null,
      { partialAbove: 5_000, pageSize: Number(process.env.PAGE_SIZE ?? 2_000) },
    );
    const rows = ['| step | heap used / report | heap committed | external | RSS / report |'];
    rows.push('| --- | ---: | ---: | ---: | ---: |');
    const m0 = measure();
    const catalog = await loader.loadComplete(TENANT);
    const m1 = measure();
    rows.push(line('read (stored reports, not judged)', m0, m1, n));
    await admission.idle();
    const m2 = measure();
    rows.push(line('+ every template judged (background)', m1, m2, n));
    await catalog.reports.prepare();
    const m3 = measure();
    rows.push(line('+ every report admitted (tool rendered)', m2, m3, n));
    rows.push(line('total', m0, m3, n));
    console.log(`${n} reports, ${catalog.reports.size} held\n${rows.join('\n')}`);
    if (snapshot) console.log(`heap snapshot: ${writeHeapSnapshot(snapshot)}`);
  });
}

runMain(main);
