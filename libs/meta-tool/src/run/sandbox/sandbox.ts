import type {
  SandboxJob,
  SandboxLayers,
  SandboxOutcome,
  SandboxPoolOptions,
} from './sandbox-types';
import { childProgram } from './child-program';
import { NODE_MODULES } from './spawn-child';
import { Worker } from './worker';
import { chooseWrapper, networkNamespaceAvailable } from './wrapper';
import type { SandboxWrapper } from './wrapper';

export { networkNamespaceAvailable };
export type { SandboxWrapper };
export * from './sandbox-types';
export { childMessage } from './child-messages';

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
    const wrapper = chooseWrapper(this.options.isolateNetwork, NODE_MODULES, childProgram().dir);
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
