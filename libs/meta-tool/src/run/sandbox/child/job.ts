import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten';
import type { ChildMessage } from '../child-messages';
import { openDoors } from './doors';
import type { HostCalls } from './doors';
import { engine, engineGrowth, send, str } from './engine';
import { PRELUDE } from './prelude';
import type { ReplyMessage, RunMessage } from './protocol';

/** The run waiting on the parent's answers to its data calls. */
export interface ActiveRun {
  job: number;
  pump(): void;
  reply(message: ReplyMessage): void;
}

let current: ActiveRun | undefined;

/** The run in progress, if any (one at a time per child). */
export const activeRun = (): ActiveRun | undefined => current;

function errorText(vm: QuickJSContext, handle: QuickJSHandle): string {
  try {
    const dumped: unknown = vm.dump(handle);
    if (dumped && typeof dumped === 'object') {
      const { name: rawName, message: rawMessage } = dumped as Record<string, unknown>;
      const name = typeof rawName === 'string' ? rawName : 'Error';
      const message = typeof rawMessage === 'string' ? rawMessage : JSON.stringify(dumped);
      return str(name === 'Error' ? message : name + ': ' + message, 1000);
    }
    return str(dumped, 1000);
  } catch {
    return 'the tool threw a value that cannot be described';
  } finally {
    handle.dispose();
  }
}

/** Runs one job in a fresh runtime; the result goes to the parent as messages. */
export function runJob(job: RunMessage): void {
  const limits = job.limits;
  const rt = engine().newRuntime();
  rt.setMemoryLimit(limits.memoryBytes);
  rt.setMaxStackSize(limits.stackBytes);
  let used = 0;
  let sliceStart = 0;
  let interrupted = false;
  // The runtime's memory limit refuses one allocation over it, not a total grown by many
  // (quickjs-emscripten#271). The total that counts is the engine's WebAssembly memory: it
  // only grows, so its growth since this child loaded the engine is the most any job here
  // has held at once. Unlike the process's RSS it moves only when the engine allocates.
  let overMemory = false;
  rt.setInterruptHandler(() => {
    if (used + (Date.now() - sliceStart) > limits.cpuMs) {
      interrupted = true;
      return true;
    }
    if (engineGrowth() > limits.memoryBytes) {
      overMemory = true;
      return true;
    }
    return false;
  });
  rt.setModuleLoader((name) => ({
    error: new Error(
      'import is not available to generated tools (asked for "' +
        str(name, 100) +
        '"); use ctx.report, ctx.query and plain JavaScript',
    ),
  }));
  const vm = rt.newContext();
  const calls: HostCalls = { deferreds: new Map(), spent: [] };
  const { deferreds, spent } = calls;
  let finished = false;
  let promise: QuickJSHandle | undefined = undefined;
  let helpers: QuickJSHandle | undefined = undefined;
  let mod: QuickJSHandle | undefined;

  const enter = <T>(fn: () => T): T => {
    sliceStart = Date.now();
    try {
      return fn();
    } finally {
      used += Date.now() - sliceStart;
    }
  };
  const stageOf = (message: string) =>
    overMemory ? 'memory' : interrupted ? 'cpu' : /out of memory/i.test(message) ? 'memory' : null;
  const mb = Math.round(limits.memoryBytes / 1048576);
  const failed = (stage: string, message: string) =>
    finish({
      type: 'failed',
      job: job.job,
      stage,
      message: str(
        overMemory
          ? 'the tool used more than ' + mb + ' MB of memory'
          : stage === 'memory'
            ? message + ' (the limit is ' + mb + ' MB per run)'
            : message,
        1000,
      ),
    });
  function finish(message: Extract<ChildMessage, { type: 'done' | 'failed' }>): void {
    if (finished) return;
    finished = true;
    current = undefined;
    let clean = true;
    try {
      for (const d of deferreds.values()) d.dispose();
      for (const d of spent) d.dispose();
      deferreds.clear();
      if (promise) promise.dispose();
      if (mod) mod.dispose();
      if (helpers) helpers.dispose();
      // tearing down may need memory of its own: lift the limit first
      rt.setMemoryLimit(-1);
      rt.removeInterruptHandler();
      vm.dispose();
      rt.dispose();
    } catch {
      clean = false;
    }
    // an engine that could not be torn down cleanly, or whose memory grew past the limit (it
    // never shrinks, so every later job would start over it), is not reused: the parent
    // replaces us
    const reuse = clean && engineGrowth() <= limits.memoryBytes;
    send(
      reuse ? message : { ...message, recycle: true },
      reuse ? undefined : () => process.exit(3),
    );
  }

  openDoors(vm, job, calls);

  const prelude = enter(() => vm.evalCode(PRELUDE, 'prelude.js', { type: 'global', strict: true }));
  if (prelude.error)
    return failed('crash', 'the sandbox prelude failed: ' + errorText(vm, prelude.error));
  helpers = prelude.value;

  const evaluated = enter(() =>
    vm.evalCode(job.source, job.name + '.mjs', { type: 'module', strict: true }),
  );
  if (evaluated.error) {
    const message = errorText(vm, evaluated.error);
    return failed(stageOf(message) || 'import', message);
  }
  mod = evaluated.value;
  // a module with top-level await evaluates to a promise of its exports
  const modState = vm.getPromiseState(mod);
  if (!(modState.type === 'fulfilled' && modState.notAPromise)) {
    if (modState.type === 'pending') {
      enter(() => rt.executePendingJobs());
    } else if (modState.type === 'fulfilled') modState.value.dispose();
    else modState.error.dispose();
    const state = vm.getPromiseState(mod);
    if (state.type === 'fulfilled') {
      const exportsH = state.value;
      mod.dispose();
      mod = exportsH;
    } else if (state.type === 'rejected') {
      const message = errorText(vm, state.error);
      return failed(stageOf(message) || 'import', message);
    } else
      return failed(
        'import',
        'the module never finished loading (top-level await of something that never settles)',
      );
  }
  const loaded = mod;

  const describeFn = vm.getProp(helpers, 'describe');
  const described = enter(() => vm.callFunction(describeFn, vm.undefined, loaded));
  describeFn.dispose();
  if (described.error) {
    const message = errorText(vm, described.error);
    return failed(stageOf(message) || 'contract', message);
  }
  const contractJson = vm.getString(described.value);
  described.value.dispose();
  send({ type: 'contract', job: job.job, contract: str(contractJson, limits.outputBytes + 65536) });
  if (!job.call) return finish({ type: 'done', job: job.job, called: false, result: 'null' });
  const contract = JSON.parse(contractJson) as { problems: unknown[]; run: boolean };
  if (contract.problems.length > 0 || !contract.run)
    return finish({ type: 'done', job: job.job, called: false, result: 'null' });

  const invokeFn = vm.getProp(helpers, 'invoke');
  const argsH = vm.newString(job.args);
  const invoked = enter(() => vm.callFunction(invokeFn, vm.undefined, loaded, argsH));
  invokeFn.dispose();
  argsH.dispose();
  if (invoked.error) {
    const message = errorText(vm, invoked.error);
    return failed(stageOf(message) || 'run', message);
  }
  const running = invoked.value;
  promise = running;
  current = { job: job.job, pump, reply };
  pump();

  function pump(): void {
    if (finished) return;
    const jobs = enter(() => rt.executePendingJobs());
    if (jobs.error) {
      const message = errorText(vm, jobs.error);
      return failed(stageOf(message) || 'run', message);
    }
    const state = vm.getPromiseState(running);
    if (state.type === 'fulfilled') {
      const json = vm.getString(state.value);
      state.value.dispose();
      if (json.length > limits.outputBytes)
        return failed(
          'output',
          'the result is ' +
            json.length +
            ' characters of JSON, over the ' +
            limits.outputBytes +
            '-character limit; return less (fewer rows, a summary)',
        );
      return finish({ type: 'done', job: job.job, called: true, result: json });
    }
    if (state.type === 'rejected') {
      const message = errorText(vm, state.error);
      return failed(stageOf(message) || 'run', message);
    }
    if (deferreds.size === 0)
      return failed(
        'run',
        'run() returned a promise that can never settle (it awaits nothing the sandbox provides)',
      );
  }

  function reply(message: ReplyMessage): void {
    const deferred = deferreds.get(message.id);
    if (!deferred || finished) return;
    deferreds.delete(message.id);
    if (message.ok) {
      const value = vm.newString(message.value);
      deferred.resolve(value);
      value.dispose();
    } else {
      const err = vm.newError(str(message.error, 2000));
      deferred.reject(err);
      err.dispose();
    }
    deferred.dispose();
    pump();
  }
}
