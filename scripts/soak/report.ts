import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../cluster/cluster';
import { lineChart } from './charts';
import { faultMarks, figures, perBucket } from './report-data';
import { soakMarkdown } from './report-markdown';
import type { RunFacts } from './report-markdown';

/** Writes the charts next to `out` (in soak/), the report to `out`, and prints it. */
export async function writeReport(o: RunFacts & { out: string }): Promise<void> {
  const { rec } = o;
  const chartsDir = path.join(path.dirname(o.out), 'soak');
  mkdirSync(chartsDir, { recursive: true });
  const faults = faultMarks(rec);
  const { throughput, latency } = perBucket(rec.samples);
  const rss = [
    ...rec.rss.map((r) => ({ t: r.t / 1000, value: r.mb, series: r.replica })),
    ...rec.afterGc.map((r) => ({ t: r.t / 1000, value: r.rssMb, series: `${r.replica} after GC` })),
  ];
  const chart = async (file: string, spec: Parameters<typeof lineChart>[0]) =>
    writeFileSync(path.join(chartsDir, file), await lineChart(spec));
  await chart('throughput.svg', {
    title: 'Answers per second (5 s buckets)',
    yTitle: 'answers/s',
    values: throughput,
    faults,
  });
  await chart('latency.svg', {
    title: 'Latency p50 / p99 (5 s buckets)',
    yTitle: 'ms',
    values: latency,
    faults,
    yScale: 'log',
  });
  await chart('rss.svg', { title: 'RSS per replica', yTitle: 'MB', values: rss, faults });
  const heap = [
    ...rec.heap.flatMap((h) => [
      { t: h.t / 1000, value: h.heapMb, series: `${h.replica} heap used` },
      { t: h.t / 1000, value: h.heapTotalMb, series: `${h.replica} heap total` },
      { t: h.t / 1000, value: h.externalMb, series: `${h.replica} external` },
    ]),
    ...rec.afterGc.map((h) => ({
      t: h.t / 1000,
      value: h.heapMb,
      series: `${h.replica} heap after GC`,
    })),
  ];
  await chart('heap.svg', {
    title: 'V8 heap used, heap total and external memory per replica',
    yTitle: 'MB',
    values: heap,
    faults,
  });
  const md = soakMarkdown(o, figures(rec));
  writeFileSync(o.out, md);
  writeFileSync(
    path.join(ROOT, '.data', 'soak', 'last-samples.json'),
    JSON.stringify({
      phases: rec.phases,
      samples: rec.samples,
      rss: rec.rss,
      heap: rec.heap,
      afterGc: rec.afterGc,
    }),
  );
  process.stderr.write(`[soak] wrote ${path.relative(ROOT, o.out)}\n`);
  process.stdout.write(md);
}
