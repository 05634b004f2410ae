/**
 * Everything the bench starts or creates registers its undo here: child processes,
 * databases, roles, Redis prefixes. Undone last-in first-out, on success, failure or a
 * signal, each step on its own so one failure does not skip the others.
 */
type Task = { name: string; run: () => Promise<void> | void };

export class Cleanup {
  private tasks: Task[] = [];
  private running?: Promise<void>;
  /** set by the signal handler */
  signalled = false;

  /** true once the cleanup has started: nothing new may be created */
  get closing(): boolean {
    return this.running !== undefined;
  }

  /** Throws once the cleanup has started, so nothing is created that it would miss. */
  ensureOpen(): void {
    if (this.closing) throw new Error('the bench is shutting down');
  }

  /** Registers an undo step; the returned function runs it now (once) and forgets it. */
  add(name: string, run: Task['run']): () => Promise<void> {
    this.ensureOpen();
    const task: Task = { name, run };
    this.tasks.push(task);
    return async () => {
      const index = this.tasks.indexOf(task);
      if (index === -1) return;
      this.tasks.splice(index, 1);
      await runTask(task);
    };
  }

  runAll(): Promise<void> {
    this.running ??= (async () => {
      while (this.tasks.length > 0) {
        const task = this.tasks.pop();
        if (task) await runTask(task);
      }
    })();
    return this.running;
  }
}

async function runTask(task: Task): Promise<void> {
  try {
    if (process.env.BENCH_DEBUG_CLEANUP) process.stderr.write(`cleanup: ${task.name}\n`);
    await task.run();
  } catch (err) {
    process.stderr.write(
      `cleanup: ${task.name} failed: ${err instanceof Error ? err.message : String(err)}\n`,
    );
  }
}

/**
 * SIGINT/SIGTERM: undo everything, then exit with the conventional code. The listeners stay
 * (`on`, not `once`): npm and tsx relay the same Ctrl-C again, and a signal with no
 * listener left would kill the process halfway through its cleanup.
 */
export function cleanupOnSignals(cleanup: Cleanup): void {
  let received = 0;
  const handler = (signal: NodeJS.Signals) => {
    received++;
    cleanup.signalled = true;
    if (received === 1) process.stderr.write(`\n${signal}: cleaning up...\n`);
    if (received > 5) {
      process.stderr.write('cleanup interrupted; databases or Redis keys may be left\n');
      process.exit(1);
    }
    void cleanup.runAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
