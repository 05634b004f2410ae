/** main at dd1d80c: a fresh node process per generated-tool call (the bench baseline, unchanged). */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { RUNNER_SOURCE } from './fresh-process-runner-source';

export interface SandboxJob {
  /** absolute path of the tool module */
  file: string;
  /** the name the module must declare */
  name: string;
  /** run it once with these arguments; without, only import and check the contract */
  call?: { args: unknown };
  timeoutMs: number;
  memoryMb: number;
  /** serves ctx.query: rows, or an Error whose message goes back to the tool */
  onQuery(sql: string, params: unknown[]): Promise<unknown[]>;
}

export type SandboxOutcome =
  | {
      ok: true;
      description: string;
      schema: Record<string, unknown>;
      called: boolean;
      result?: unknown;
    }
  | { ok: false; stage: 'import' | 'contract' | 'run' | 'timeout' | 'crash'; message: string };

type ChildMessage =
  | { type: 'ready' }
  | { type: 'query'; id: number; sql: string; params: unknown[] }
  | { type: 'contract'; description: string; schema: Record<string, unknown> }
  | { type: 'done'; called: boolean; result?: unknown }
  | { type: 'failed'; stage: 'import' | 'contract' | 'run'; message: string };

/** Where installed packages live, so a tool may import the project's dependencies. */
const NODE_MODULES = path.resolve(require.resolve('ajv'), '..', '..', '..');

/**
 * Runs a generated tool in a child process under Node's permission model: it may read only
 * its own file and node_modules, never write files, spawn processes or start workers; it gets
 * an empty environment, a heap cap and a wall-clock timeout. A fresh process per job also
 * means no ESM cache: every version of a tool runs its own code.
 */
export function runInSandbox(job: SandboxJob): Promise<SandboxOutcome> {
  const child = spawn(
    process.execPath,
    [
      '--experimental-permission',
      `--allow-fs-read=${job.file}`,
      `--allow-fs-read=${NODE_MODULES}/*`,
      `--max-old-space-size=${job.memoryMb}`,
      '--no-warnings',
      '-e',
      RUNNER_SOURCE,
    ],
    { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: {} },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  return new Promise<SandboxOutcome>((resolve) => {
    let contract: { description: string; schema: Record<string, unknown> } | undefined;
    let settled = false;
    const finish = (outcome: SandboxOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      resolve(outcome);
    };
    const timer = setTimeout(
      () =>
        finish({
          ok: false,
          stage: 'timeout',
          message: `the tool did not finish within ${job.timeoutMs} ms`,
        }),
      job.timeoutMs,
    );
    child.on('error', (err) =>
      finish({ ok: false, stage: 'crash', message: `the sandbox could not start: ${err.message}` }),
    );
    child.on('exit', (code, signal) => {
      const reason = /heap out of memory|Allocation failed/i.test(stderr)
        ? `it ran out of memory (limit ${job.memoryMb} MB)`
        : `exit ${code ?? signal}${stderr ? `: ${stderr.trim().split('\n').slice(-3).join(' ')}` : ''}`;
      finish({ ok: false, stage: 'crash', message: `the sandbox process ended early (${reason})` });
    });
    child.on('message', (raw) => {
      const message = raw as ChildMessage;
      switch (message.type) {
        case 'ready':
          child.send({
            type: 'run',
            file: job.file,
            name: job.name,
            call: job.call !== undefined,
            args: job.call?.args ?? {},
          });
          return;
        case 'query':
          job.onQuery(message.sql, message.params).then(
            (rows) => child.connected && child.send({ type: 'reply', id: message.id, rows }),
            (err: unknown) =>
              child.connected &&
              child.send({
                type: 'reply',
                id: message.id,
                error: err instanceof Error ? err.message : String(err),
              }),
          );
          return;
        case 'contract':
          contract = { description: message.description, schema: message.schema };
          return;
        case 'done':
          if (!contract)
            return finish({
              ok: false,
              stage: 'contract',
              message: 'the tool finished before reporting its contract',
            });
          return finish({ ok: true, ...contract, called: message.called, result: message.result });
        case 'failed':
          return finish({ ok: false, stage: message.stage, message: message.message });
      }
    });
  });
}
