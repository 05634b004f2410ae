import type { QuickJSContext, QuickJSDeferredPromise } from 'quickjs-emscripten';
import { send, str } from './engine';
import type { RunMessage } from './protocol';

// what a data call may carry to the parent at most (the parent's own bound, 512 KB, is lower)
const HOST_TEXT_MAX = 1048576;

/** The data calls of one run still waiting for the parent, and the ones refused here. */
export interface HostCalls {
  deferreds: Map<number, QuickJSDeferredPromise>;
  spent: QuickJSDeferredPromise[];
}

/**
 * Puts the host's doors into the engine as globals for the prelude to take: `__host` (a data
 * call, answered by the parent through a promise), `__log` (a console line) and `__user`.
 */
export function openDoors(vm: QuickJSContext, job: RunMessage, calls: HostCalls): void {
  const limits = job.limits;
  let hostCalls = 0;
  let logLines = 0;
  let nextId = 0;
  const hostFn = vm.newFunction('__host', (opH, aH, bH) => {
    const op = vm.getString(opH);
    const a = vm.getString(aH);
    const b = vm.getString(bH);
    const deferred = vm.newPromise();
    hostCalls += 1;
    if (hostCalls > limits.maxHostCalls) {
      const err = vm.newError(
        'this run made more than ' +
          limits.maxHostCalls +
          ' ctx.query/ctx.report calls; that is the limit per run',
      );
      deferred.reject(err);
      err.dispose();
      calls.spent.push(deferred);
      return deferred.handle;
    }
    // never cut: cut JSON is not JSON, and the parent bounds the arguments with a clear message
    if (a.length > HOST_TEXT_MAX || b.length > HOST_TEXT_MAX) {
      const err = vm.newError(
        'the arguments of ctx.' +
          (op === 'report' ? 'report' : 'query') +
          ' are over ' +
          HOST_TEXT_MAX +
          ' characters; nothing was run',
      );
      deferred.reject(err);
      err.dispose();
      calls.spent.push(deferred);
      return deferred.handle;
    }
    const id = ++nextId;
    calls.deferreds.set(id, deferred);
    send({ type: 'host', job: job.job, id, op: op === 'report' ? 'report' : 'query', a, b });
    return deferred.handle;
  });
  const logFn = vm.newFunction('__log', (levelH, textH) => {
    logLines += 1;
    if (logLines > limits.maxLogLines) return;
    send({
      type: 'log',
      job: job.job,
      level: vm.getString(levelH),
      text: str(vm.getString(textH), 500),
    });
  });
  vm.setProp(vm.global, '__host', hostFn);
  vm.setProp(vm.global, '__log', logFn);
  hostFn.dispose();
  logFn.dispose();
  const userH = vm.newString(job.user);
  vm.setProp(vm.global, '__user', userH);
  userH.dispose();
}
