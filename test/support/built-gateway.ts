import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
/** What `npm start` runs. */
export const MAIN = path.join(ROOT, 'dist/apps/gateway/src/main.js');

/**
 * Builds what `npm start` runs when it is missing or older than its sources: the same check
 * `npm start` makes (scripts/build-if-needed.js), so tests and users build alike.
 */
export function ensureBuilt(): void {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-if-needed.js')], {
    cwd: ROOT,
    stdio: 'ignore',
  });
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const running = new Set<ReturnType<typeof spawn>>();

/** Kills every gateway runBuilt started that has not exited (for afterEach: a timed-out test). */
export function killRunning(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/**
 * Runs the built gateway in `cwd` with exactly `env` (plus PATH). `ready` is awaited once
 * its log says it listens; then it is stopped with SIGTERM. Resolves when it exits.
 */
export function runBuilt(
  cwd: string,
  env: Record<string, string>,
  ready: () => Promise<void> = async () => undefined,
): Promise<Run> {
  const child = spawn(process.execPath, [MAIN], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  let checked: Promise<void> | undefined;
  const onOutput = () => {
    if (checked || !/listening on http/.test(stdout + stderr)) return;
    checked = ready().finally(() => child.kill('SIGTERM'));
  };
  child.stdout.on('data', (d: Buffer) => ((stdout += d.toString()), onOutput()));
  child.stderr.on('data', (d: Buffer) => ((stderr += d.toString()), onOutput()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      running.delete(child);
      const result = { code, stdout, stderr };
      if (checked) checked.then(() => resolve(result), reject);
      else resolve(result);
    });
  });
}
