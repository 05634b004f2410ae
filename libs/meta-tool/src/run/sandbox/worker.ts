import type { ChildProcess } from 'node:child_process';
import { childMessage, parseContract } from './child-messages';
import type { ChildMessage } from './child-messages';
import type {
  SandboxContract,
  SandboxJob,
  SandboxOutcome,
  SandboxPoolOptions,
  SandboxStage,
} from './sandbox-types';
import { spawnChild } from './spawn-child';

let jobCounter = 0;

/** The job a worker is running. */
interface ActiveJob {
  job: number;
  spec: SandboxJob;
  contract?: SandboxContract;
  abort: AbortController;
  finish: (outcome: SandboxOutcome, recycle?: boolean) => void;
}

type JobMessage = Exclude<ChildMessage, { type: 'ready' } | { type: 'fatal' }>;

/** One pooled child: runs one job at a time, replaced after N jobs or any fault. */
export class Worker {
  readonly child: ChildProcess;
  ready: Promise<boolean>;
  /** why the child could not start, once known (spawn error, early exit, fatal message) */
  startFailure?: string;
  jobs = 0;
  dead = false;
  private markReady: (ok: boolean) => void = () => undefined;
  private active?: ActiveJob;
  private stderr = '';

  constructor(
    private readonly options: SandboxPoolOptions,
    private readonly onExit: (w: Worker) => void,
  ) {
    this.child = spawnChild(options);
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
    this.child.on('message', (raw: unknown) => this.onMessage(raw));
  }

  private onMessage(raw: unknown): void {
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
      this.send(this.active);
    });
  }

  /** Hands the job to the child; a child that cannot take it ends the job as a crash. */
  private send({ job, spec, finish }: ActiveJob): void {
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
      finish(
        {
          ok: false,
          stage: 'crash',
          message: `the sandbox could not take the job: ${String(err)}`,
        },
        true,
      );
    }
  }

  private onJobMessage(message: JobMessage) {
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
          (json) => this.reply(active.job, id, true, json),
          (err: unknown) =>
            this.reply(active.job, id, false, err instanceof Error ? err.message : String(err)),
        );
        return;
      }
      case 'done':
        return this.done(active, message);
      case 'failed':
        return active.finish(
          { ok: false, stage: message.stage as SandboxStage, message: message.message },
          message.recycle || message.stage === 'memory',
        );
    }
  }

  /** The tool returned: its result, unless it is over the output cap or not JSON. */
  private done(active: ActiveJob, message: Extract<JobMessage, { type: 'done' }>): void {
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

  /** `text`: the value's JSON when ok, else the error message for the tool */
  private reply(job: number, id: number, ok: boolean, text: string) {
    if (this.active?.job !== job || !this.child.connected) return;
    try {
      const payload = ok
        ? { type: 'reply', job, id, ok: true, value: text }
        : { type: 'reply', job, id, ok: false, error: text };
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
