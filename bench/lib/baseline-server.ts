import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Cleanup } from './cleanup';
import { HttpClient } from './http';
import { freePort } from './ports';

export interface StaticServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** One fixed response: for request paths starting with `prefix`, these headers and bytes. */
export interface StaticRoute {
  prefix: string;
  body: Buffer;
  headers: Record<string, string>;
}

/** Starts bench/lib/static-server.ts in its own Node process, serving exactly these bytes. */
export async function startStaticServer(
  cleanup: Cleanup,
  routes: StaticRoute[],
): Promise<StaticServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-bench-static-'));
  const spec = routes.map((r, i) => {
    const file = path.join(dir, `body-${i}`);
    writeFileSync(file, r.body);
    return { prefix: r.prefix, file, headers: r.headers };
  });
  const port = await freePort();
  cleanup.ensureOpen();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, 'static-server.ts')],
    {
      cwd: path.resolve(__dirname, '../..'),
      env: {
        PATH: process.env.PATH,
        BENCH_ROUTES: JSON.stringify(spec),
        PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  const stop = cleanup.add(`stop static server (pid ${child.pid})`, async () => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const deadline = Date.now() + 20_000;
  while (!output.includes(`listening ${port}`)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`static server did not start: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  // One request, so the first timed one does not pay for anything the process loads lazily.
  const client = new HttpClient(`http://127.0.0.1:${port}`);
  for (const r of routes) await client.ok(r.prefix);
  client.close();
  return { url: `http://127.0.0.1:${port}`, pid: child.pid ?? -1, stop };
}
