import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * OPS_SPLIT_PERF=<dir>: `perf record -e cpu-clock` (on-CPU time only, unlike a wall-clock
 * sampler, so a loaded machine does not inflate it) of one process while `run` goes; writes
 * `<dir>/<label>.data` and `<label>.json` ({ responses }) for `perf report`. Start the
 * gateway with NODE_OPTIONS=--perf-basic-prof to see JavaScript function names.
 */
export async function withPerfRecord<T extends { responses: number }>(
  dir: string | undefined,
  label: string,
  pid: number | undefined,
  run: () => Promise<T>,
): Promise<T> {
  if (!dir || pid === undefined) return run();
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${label}.data`);
  const perf = spawn(
    'perf',
    ['record', '-q', '-e', 'cpu-clock', '-F', '999', '-p', String(pid), '-o', file],
    {
      stdio: 'ignore',
    },
  );
  const exited = new Promise<void>((resolve) => perf.once('exit', () => resolve()));
  try {
    const result = await run();
    writeFileSync(path.join(dir, `${label}.json`), JSON.stringify({ responses: result.responses }));
    return result;
  } finally {
    perf.kill('SIGINT');
    await exited;
  }
}
