import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { WORKER_SOURCE } from './worker-source';
import { chooseWrapper, networkNamespaceAvailable, wrapped } from './wrapper';
import type { SandboxWrapper } from './wrapper';

export { networkNamespaceAvailable };
export type { SandboxWrapper };

export type SandboxStage =
  | 'import'
  | 'contract'
  | 'run'
  | 'timeout'
  | 'crash'
  | 'cpu'
  | 'memory'
  | 'output'
  | 'arguments'
  | 'busy';

export interface SandboxContract {
  problems: string[];
  name: unknown;
  description: unknown;
  /** the schema as JSON text, or null */
  schema: string | null;
  run: boolean;
}

export type SandboxOutcome =
  | { ok: true; contract: SandboxContract; called: boolean; result: unknown; resultJson: string }
  | { ok: false; stage: SandboxStage; message: string };

export interface SandboxLimits {
  /** QuickJS heap bound, enforced by the engine's allocator */
  memoryBytes: number;
  stackBytes: number;
  /** time spent executing inside the engine */
  cpuMs: number;
  /** characters of result JSON */
  outputBytes: number;
  maxHostCalls: number;
  maxLogLines: number;
}

export interface SandboxJob {
  tenantId: string;
  name: string;
  source: string;
  /** run it once with these arguments (as JSON text); without, only load and describe */
  call?: { argsJson: string };
  /** read-only caller facts given to the tool as ctx.user */
  user: Record<string, unknown>;
  /** wall-clock bound of the whole job, host calls included; past it the child is killed */
  timeoutMs: number;
  /** serves ctx.query / ctx.report: a JSON-serialisable value, or an Error for the tool */
  onHost(op: 'query' | 'report', a: string, bJson: string, signal: AbortSignal): Promise<unknown>;
  onLog(level: string, text: string): void;
}

export interface SandboxPoolOptions {
  size: number;
  perTenant: number;
  /** how long a call may wait for a free sandbox before it is answered "busy" */
  queueWaitMs: number;
  maxQueue: number;
  /** a child is replaced after this many jobs */
  recycleAfter: number;
  /** V8 heap flag of the child (the outer wall; the engine's own limit is the inner one) */
  childHeapMb: number;
  limits: SandboxLimits;
  /** run children in their own namespaces: bubblewrap where it works, else unshare -rn */
  isolateNetwork: boolean;
  /** the child program; tests replace it with a hostile one to prove the boundary holds */
  workerSource?: string;
}

/** Which layers of the sandbox are active on this machine (for /healthz and the log). */
export interface SandboxLayers {
  engine: 'quickjs-wasm';
  process: 'pooled-child';
  permission_model: boolean;
  /** what the child runs inside: bubblewrap (namespaces and a read-only file view), unshare -rn, none */
  wrapper: SandboxWrapper;
  network_namespace: boolean;
  /** the child sees only system libraries, node and the packages (bubblewrap) */
  filesystem_view: boolean;
  /** the child cannot see or signal the gateway's processes (bubblewrap) */
  pid_namespace: boolean;
  pool_size: number;
}

const QUICKJS = require.resolve('quickjs-emscripten');
const NODE_MODULES = path.resolve(QUICKJS, '..', '..', '..', '..');

/** The shape of every message a child may send; anything else is a fault of that child. */
type ChildMessage =
  | { type: 'ready' }
  | { type: 'fatal'; message: string }
  | { type: 'host'; job: number; id: number; op: 'query' | 'report'; a: string; b: string }
  | { type: 'log'; job: number; level: string; text: string }
  | { type: 'contract'; job: number; contract: string }
  | { type: 'done'; job: number; called: boolean; result: string; recycle?: boolean }
  | { type: 'failed'; job: number; stage: string; message: string; recycle?: boolean };

const WORKER_STAGES = new Set(['import', 'contract', 'run', 'crash', 'cpu', 'memory', 'output']);

export function childMessage(raw: unknown): ChildMessage | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const m = raw as Record<string, unknown>;
  const isNum = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v);
  const isStr = (v: unknown) => typeof v === 'string';
  const recycle = m.recycle === undefined || typeof m.recycle === 'boolean';
  switch (m.type) {
    case 'ready':
      return { type: 'ready' };
    case 'fatal':
      return isStr(m.message) ? (m as ChildMessage) : undefined;
    case 'host':
      return isNum(m.job) &&
        isNum(m.id) &&
        (m.op === 'query' || m.op === 'report') &&
        isStr(m.a) &&
        isStr(m.b)
        ? (m as ChildMessage)
        : undefined;
    case 'log':
      return isNum(m.job) && isStr(m.level) && isStr(m.text) ? (m as ChildMessage) : undefined;
    case 'contract':
      return isNum(m.job) && isStr(m.contract) ? (m as ChildMessage) : undefined;
    case 'done':
      return isNum(m.job) && typeof m.called === 'boolean' && isStr(m.result) && recycle
        ? (m as ChildMessage)
        : undefined;
    case 'failed':
      return isNum(m.job) &&
        isStr(m.stage) &&
        WORKER_STAGES.has(m.stage as string) &&
        isStr(m.message) &&
        recycle
        ? (m as ChildMessage)
        : undefined;
    default:
      return undefined;
  }
}

/** Parses the contract JSON the engine produced, by shape. */
function parseContract(text: string): SandboxContract | undefined {
  try {
    const c = JSON.parse(text) as Record<string, unknown>;
    if (!c || typeof c !== 'object' || !Array.isArray(c.problems)) return undefined;
    if (!c.problems.every((p) => typeof p === 'string')) return undefined;
    if (c.schema !== null && c.schema !== undefined && typeof c.schema !== 'string')
      return undefined;
    return {
      problems: c.problems as string[],
      name: c.name,
      description: c.description,
      schema: (c.schema as string | null | undefined) ?? null,
      run: c.run === true,
    };
  } catch {
    return undefined;
  }
}

let jobCounter = 0;

/** One pooled child: runs one job at a time, replaced after N jobs or any fault. */
class Worker {
  readonly child: ChildProcess;
  ready: Promise<boolean>;
  /** why the child could not start, once known (spawn error, early exit, fatal message) */
  startFailure?: string;
  jobs = 0;
  dead = false;
  private markReady: (ok: boolean) => void = () => undefined;
  private active?: {
    job: number;
    spec: SandboxJob;
    contract?: SandboxContract;
    abort: AbortController;
    finish: (outcome: SandboxOutcome, recycle?: boolean) => void;
  };
  private stderr = '';

  constructor(
    private readonly options: SandboxPoolOptions,
    private readonly onExit: (w: Worker) => void,
  ) {
    const nodeArgs = [
      '--experimental-permission',
      `--allow-fs-read=${NODE_MODULES}/*`,
      `--max-old-space-size=${options.childHeapMb}`,
      '--no-warnings',
      '-e',
      options.workerSource ?? WORKER_SOURCE,
      QUICKJS,
    ];
    const wrapper = chooseWrapper(options.isolateNetwork, NODE_MODULES);
    const [command, args] = wrapped(wrapper, nodeArgs, NODE_MODULES);
    this.child = spawn(command, args, {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: {},
      serialization: 'json',
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-2000);
    });
    this.ready = new Promise<boolean>((resolve) => (this.markReady = resolve));
    this.child.on('error', (err) =>
      this.die(`the sandbox process could not start: ${err.message}`),
    );
    this.child.on('exit', (code, signal) => {
      this.die(
        `the sandbox process ended early (exit ${code ?? signal}${this.stderr ? `: ${this.stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300)}` : ''})`,
      );
    });
    this.child.on('message', (raw: unknown) => {
      // never let anything a child sends throw out of this listener
      try {
        const message = childMessage(raw);
        if (!message) {
          this.fault('the sandbox sent a message of an unknown shape');
          return;
        }
        if (message.type === 'ready') this.markReady(true);
        else if (message.type === 'fatal') {
          this.startFailure = `the engine did not load: ${message.message}`;
          this.fault(`the sandbox could not start: ${message.message}`);
        } else this.onJobMessage(message);
      } catch (err) {
        this.fault(`the sandbox message could not be handled: ${String(err)}`);
      }
    });
  }

  get busy(): boolean {
    return this.active !== undefined;
  }

  run(spec: SandboxJob): Promise<SandboxOutcome> {
    this.jobs += 1;
    const job = ++jobCounter;
    const abort = new AbortController();
    return new Promise<SandboxOutcome>((resolve) => {
      const timer = setTimeout(() => {
        this.active?.finish(
          {
            ok: false,
            stage: 'timeout',
            message: `the tool did not finish within ${spec.timeoutMs} ms`,
          },
          true,
        );
      }, spec.timeoutMs);
      this.active = {
        job,
        spec,
        abort,
        finish: (outcome, recycle = false) => {
          if (this.active?.job !== job) return;
          clearTimeout(timer);
          this.active = undefined;
          abort.abort();
          if (recycle || this.jobs >= this.options.recycleAfter) this.kill();
          resolve(outcome);
        },
      };
      try {
        this.child.send({
          type: 'run',
          job,
          source: spec.source,
          name: spec.name,
          call: spec.call !== undefined,
          args: spec.call?.argsJson ?? '{}',
          user: JSON.stringify(spec.user),
          limits: this.options.limits,
        });
      } catch (err) {
        this.active.finish(
          {
            ok: false,
            stage: 'crash',
            message: `the sandbox could not take the job: ${String(err)}`,
          },
          true,
        );
      }
    });
  }

  private onJobMessage(message: Exclude<ChildMessage, { type: 'ready' } | { type: 'fatal' }>) {
    const active = this.active;
    if (!active || message.job !== active.job) return; // a late message of a finished job
    switch (message.type) {
      case 'log':
        active.spec.onLog(message.level, message.text);
        return;
      case 'contract': {
        const contract = parseContract(message.contract);
        if (!contract) return this.fault('the sandbox reported a contract of an unknown shape');
        active.contract = contract;
        return;
      }
      case 'host': {
        const { id } = message;
        active.spec.onHost(message.op, message.a, message.b, active.abort.signal).then(
          (value) => this.reply(active.job, id, true, value),
          (err: unknown) =>
            this.reply(active.job, id, false, err instanceof Error ? err.message : String(err)),
        );
        return;
      }
      case 'done': {
        if (!active.contract) return this.fault('the tool finished before reporting its contract');
        if (message.result.length > this.options.limits.outputBytes)
          return active.finish(
            {
              ok: false,
              stage: 'output',
              message: `the result is ${message.result.length} characters of JSON, over the ${this.options.limits.outputBytes}-character limit; return less (fewer rows, a summary)`,
            },
            true,
          );
        let result: unknown;
        try {
          result = JSON.parse(message.result);
        } catch {
          return this.fault('the sandbox returned a result that is not JSON');
        }
        return active.finish(
          {
            ok: true,
            contract: active.contract,
            called: message.called,
            result,
            resultJson: message.result,
          },
          message.recycle,
        );
      }
      case 'failed':
        return active.finish(
          { ok: false, stage: message.stage as SandboxStage, message: message.message },
          message.recycle || message.stage === 'memory',
        );
    }
  }

  private reply(job: number, id: number, ok: boolean, value: unknown) {
    if (this.active?.job !== job || !this.child.connected) return;
    try {
      const payload = ok
        ? { type: 'reply', job, id, ok: true, value: JSON.stringify(value ?? null) }
        : { type: 'reply', job, id, ok: false, error: String(value) };
      this.child.send(payload, (err) => {
        if (err) this.fault('the sandbox could not be answered');
      });
    } catch (err) {
      this.fault(`the sandbox could not be answered: ${String(err)}`);
    }
  }

  private fault(message: string) {
    if (this.active) this.active.finish({ ok: false, stage: 'crash', message }, true);
    else this.kill();
  }

  private die(message: string) {
    this.startFailure ??= message;
    this.markReady(false); // a child that is gone is not waited for
    if (this.dead) return;
    this.dead = true;
    this.active?.finish({ ok: false, stage: 'crash', message }, true);
    this.onExit(this);
  }

  kill() {
    if (!this.dead) {
      this.dead = true;
      this.onExit(this);
    }
    try {
      this.child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}

interface Waiter {
  tenantId: string;
  start: (w: Worker) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * A small pool of sandbox children. At most `size` jobs run at once, at most `perTenant` of
 * one tenant; the rest wait in a FIFO queue for up to `queueWaitMs` and are then answered
 * "busy". Children are started lazily, kept warm, and replaced after `recycleAfter` jobs or on
 * any fault (timeout, crash, a message of the wrong shape, an engine that did not tear down).
 */
export class SandboxPool {
  private readonly workers = new Set<Worker>();
  private readonly idle: Worker[] = [];
  private readonly running = new Map<string, number>();
  private readonly queue: Waiter[] = [];
  private closed = false;

  constructor(readonly options: SandboxPoolOptions) {}

  layers(): SandboxLayers {
    const wrapper = chooseWrapper(this.options.isolateNetwork, NODE_MODULES);
    return {
      engine: 'quickjs-wasm',
      process: 'pooled-child',
      permission_model: true,
      wrapper,
      network_namespace: wrapper !== 'none',
      filesystem_view: wrapper === 'bubblewrap',
      pid_namespace: wrapper === 'bubblewrap',
      pool_size: this.options.size,
    };
  }

  /** process ids of the children (for operators and fault tests) */
  pids(): number[] {
    return [...this.workers].map((w) => w.child.pid).filter((p): p is number => p !== undefined);
  }

  /** process ids of the children running a job right now */
  busyPids(): number[] {
    return [...this.workers]
      .filter((w) => w.busy)
      .map((w) => w.child.pid)
      .filter((p): p is number => p !== undefined);
  }

  stats(): { workers: number; idle: number; queued: number } {
    return { workers: this.workers.size, idle: this.idle.length, queued: this.queue.length };
  }

  async run(job: SandboxJob): Promise<SandboxOutcome> {
    if (typeof job.timeoutMs !== 'number' || !(job.timeoutMs > 0) || !isFinite(job.timeoutMs))
      // NaN would make every timer below fire at once and pass for a child that cannot start
      throw new TypeError(
        `SandboxPool.run: timeoutMs must be a positive number of milliseconds, not ${typeof job.timeoutMs === 'number' ? job.timeoutMs : typeof job.timeoutMs}`,
      );
    if (this.closed) return { ok: false, stage: 'busy', message: 'the sandbox is shutting down' };
    let worker: Worker;
    try {
      worker = await this.acquire(job.tenantId);
    } catch (err) {
      return { ok: false, stage: 'busy', message: (err as Error).message };
    }
    try {
      let startTimer: NodeJS.Timeout | undefined;
      const startMs = Math.max(job.timeoutMs, 5000);
      const started = await Promise.race([
        worker.ready,
        new Promise<boolean>((resolve) => {
          startTimer = setTimeout(() => resolve(false), startMs);
        }),
      ]);
      clearTimeout(startTimer);
      if (!started) {
        const why = worker.startFailure ?? `it did not report ready within ${startMs} ms`;
        worker.kill();
        return {
          ok: false,
          stage: 'crash',
          message: `the sandbox process could not start (${why})`,
        };
      }
      return await worker.run(job);
    } finally {
      this.release(job.tenantId, worker);
    }
  }

  private acquire(tenantId: string): Promise<Worker> {
    return new Promise<Worker>((resolve, reject) => {
      const start = (w: Worker) => resolve(w);
      if (this.canStart(tenantId)) return start(this.take(tenantId));
      if (this.queue.length >= this.options.maxQueue) return reject(new Error(this.busyMessage()));
      const waiter: Waiter = {
        tenantId,
        start,
        reject,
        timer: setTimeout(() => {
          const at = this.queue.indexOf(waiter);
          if (at >= 0) this.queue.splice(at, 1);
          reject(new Error(this.busyMessage()));
        }, this.options.queueWaitMs),
      };
      this.queue.push(waiter);
    });
  }

  private busyMessage(): string {
    return `busy: every sandbox for generated tools is in use (at most ${this.options.size} at once, ${this.options.perTenant} per tenant); nothing was run. Try again in a few seconds`;
  }

  private canStart(tenantId: string): boolean {
    const inUse = this.workers.size - this.idle.length;
    return (
      (this.running.get(tenantId) ?? 0) < this.options.perTenant &&
      (this.idle.length > 0 || inUse < this.options.size)
    );
  }

  private take(tenantId: string): Worker {
    this.running.set(tenantId, (this.running.get(tenantId) ?? 0) + 1);
    let worker = this.idle.pop();
    while (worker?.dead) worker = this.idle.pop();
    if (!worker) {
      worker = new Worker(this.options, (w) => this.forget(w));
      this.workers.add(worker);
    }
    return worker;
  }

  private release(tenantId: string, worker: Worker) {
    const n = (this.running.get(tenantId) ?? 1) - 1;
    if (n <= 0) this.running.delete(tenantId);
    else this.running.set(tenantId, n);
    if (!worker.dead && !this.closed) this.idle.push(worker);
    this.drain();
  }

  private forget(worker: Worker) {
    this.workers.delete(worker);
    const at = this.idle.indexOf(worker);
    if (at >= 0) this.idle.splice(at, 1);
    queueMicrotask(() => this.drain());
  }

  private drain() {
    for (let i = 0; i < this.queue.length;) {
      const waiter = this.queue[i];
      if (!this.canStart(waiter.tenantId)) {
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      clearTimeout(waiter.timer);
      waiter.start(this.take(waiter.tenantId));
    }
  }

  /** Starts `n` children ahead of the first calls. */
  warm(n = 1): void {
    for (
      let i = 0;
      i < Math.min(n, this.options.size) && this.workers.size < this.options.size;
      i++
    ) {
      const worker = new Worker(this.options, (w) => this.forget(w));
      this.workers.add(worker);
      this.idle.push(worker);
    }
  }

  close(): void {
    this.closed = true;
    for (const waiter of this.queue.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new Error('the sandbox is shutting down'));
    }
    for (const worker of [...this.workers]) worker.kill();
  }
}
