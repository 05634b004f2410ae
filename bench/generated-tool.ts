/**
 * `npx tsx bench/generated-tool.ts [calls]`: the cost of one generated-tool call in its sandbox,
 * before (main at dd1d80c: a fresh `node` process per call, bench/baseline) and after (the
 * QuickJS engine in a pool of warm children), measured in the same run on the same tool:
 * p50 of sequential calls, and throughput with 4 calls in flight.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SandboxPool } from '@app/meta-tool';
import { runInSandbox } from './baseline/fresh-process-sandbox';

const TOOL = `export default {
  name: 'outline',
  description: 'counts words per line',
  schema: { type: 'object', properties: { text: { type: 'string' } } },
  async run(args) {
    return args.text.split('\\n').map((line, i) => ({ line: i + 1, words: line.split(/\\s+/).filter(Boolean).length }));
  },
};
`;
const ARGS = { text: '# Title\nsome words here\n- a list item\n## Part\nmore words in this part' };
const calls = Number(process.argv[2] ?? 40);
const CONCURRENCY = 4;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function measure(name: string, once: () => Promise<void>) {
  for (let i = 0; i < 3; i++) await once(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    await once();
    times.push(performance.now() - t);
  }
  // warm-up with the same concurrency, so a pool has all its children started
  await Promise.all(Array.from({ length: CONCURRENCY }, () => once()));
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < calls) await once();
    }),
  );
  const perSec = calls / ((performance.now() - started) / 1000);
  return { name, p50: pct(times, 50), p95: pct(times, 95), perSec };
}

async function main() {
  const dir = path.join(os.tmpdir(), `bench-generated-tool-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'outline.mjs');
  writeFileSync(file, TOOL);
  const pool = new SandboxPool({
    size: CONCURRENCY,
    perTenant: CONCURRENCY,
    queueWaitMs: 10_000,
    maxQueue: 1000,
    recycleAfter: 500,
    childHeapMb: 64,
    isolateNetwork: true,
    limits: {
      memoryBytes: 64 << 20,
      stackBytes: 256 << 10,
      cpuMs: 2500,
      outputBytes: 256 * 1024,
      maxHostCalls: 20,
      maxLogLines: 50,
    },
  });
  try {
    const before = await measure('before: fresh process per call (main)', async () => {
      const out = await runInSandbox({
        file,
        name: 'outline',
        call: { args: ARGS },
        timeoutMs: 10_000,
        memoryMb: 64,
        onQuery: async () => [],
      });
      if (!out.ok) throw new Error(out.message);
    });
    const after = await measure('after: QuickJS in a warm pool', async () => {
      const out = await pool.run({
        tenantId: 'bench',
        name: 'outline',
        source: TOOL,
        call: { argsJson: JSON.stringify(ARGS) },
        user: { user_id: 'bench' },
        timeoutMs: 10_000,
        onHost: async () => '[]',
        onLog: () => undefined,
      });
      if (!out.ok) throw new Error(out.message);
    });
    const rows = [before, after].map(
      (r) =>
        `| ${r.name} | ${r.p50.toFixed(1)} ms | ${r.p95.toFixed(1)} ms | ${r.perSec.toFixed(1)} calls/s |`,
    );
    process.stdout.write(
      [
        `calls: ${calls} sequential + ${calls} with ${CONCURRENCY} in flight; network namespace: ${pool.layers().network_namespace}`,
        '| variant | p50 | p95 | throughput (4 in flight) |',
        '| --- | --- | --- | --- |',
        ...rows,
        `p50 ratio before/after: ${(before.p50 / after.p50).toFixed(1)}x; throughput ratio after/before: ${(after.perSec / before.perSec).toFixed(1)}x`,
        '',
      ].join('\n'),
    );
  } finally {
    pool.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
