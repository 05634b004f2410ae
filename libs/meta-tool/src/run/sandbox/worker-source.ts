/**
 * The program each pooled sandbox child runs (`node -e`, CommonJS, nothing to compile). It
 * loads the QuickJS WebAssembly engine once and then, for every job, builds a fresh QuickJS
 * runtime with its own memory limit, stack limit and CPU deadline, evaluates the tool's
 * source as an ES module inside it, checks the contract and runs it once. The tool's code
 * only ever sees what is defined inside the engine: `ctx.query`, `ctx.report`, `ctx.user`,
 * `console` and the language itself. There is no `process`, `require`, `import`, network,
 * file, timer, `WebAssembly` or shared memory in there to reach for.
 *
 * Messages to the parent are plain JSON objects whose payloads (arguments, rows, results)
 * travel as strings, so a value from the engine is never handed to Node's serializer.
 * argv[1] is the absolute path of the quickjs-emscripten package, argv[2] the per-run memory
 * limit in bytes (the engine's WebAssembly memory is capped from it).
 */
export const WORKER_SOURCE = String.raw`
'use strict';
const { newQuickJSWASMModule, newVariant, RELEASE_SYNC } = require(process.argv[1]);
// The engine's WebAssembly memory, bounded: its own 16 MB (the module's initial memory: its
// data, stack and first heap) plus the per-run limit (argv[2]). QuickJS's own limit does not
// add allocations up (quickjs-emscripten#271: under Emscripten it cannot size what it frees),
// and its interrupt check comes too rarely to see a loop of typed arrays, which grew a child
// past 1 GB. Capped here, the allocation past the cap fails inside the engine ("out of
// memory") and the run ends with stage "memory"; the child, whose memory never shrinks, is
// then replaced. Tearing a run down at the cap may fail too: that child is replaced as well.
const PAGE = 65536;
const ENGINE_OWN_BYTES = 16 * 1048576;
const runLimitBytes = Number(process.argv[2]) > 0 ? Number(process.argv[2]) : 64 * 1048576;
const engineMemory = new WebAssembly.Memory({
  initial: ENGINE_OWN_BYTES / PAGE,
  maximum: Math.ceil((ENGINE_OWN_BYTES + runLimitBytes) / PAGE),
});
const getQuickJS = () => newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory: engineMemory }));

const send = (message, then) => {
  try {
    if (process.connected) return void process.send(message, then);
  } catch (err) {
    // the parent is gone or the message could not be sent: nothing more to do here
  }
  if (then) then();
};
const str = (value, max) => {
  const text = typeof value === 'string' ? value : String(value);
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
};

// Runs inside the engine before the tool's module: the only doors to the outside.
const PRELUDE = "(function () {\n" +
  "  'use strict';\n" +
  "  const host = globalThis.__host, log = globalThis.__log, userJson = globalThis.__user;\n" +
  "  const stringify = JSON.stringify, parse = JSON.parse;\n" +
  "  delete globalThis.__host; delete globalThis.__log; delete globalThis.__user;\n" +
  "  const freeze = (v) => { if (v && typeof v === 'object') { Object.values(v).forEach(freeze); Object.freeze(v); } return v; };\n" +
  "  const user = freeze(JSON.parse(userJson));\n" +
  "  const text = (args) => args.map((a) => { if (typeof a === 'string') return a; try { return JSON.stringify(a); } catch (e) { return String(a); } }).join(' ');\n" +
  "  const consoleObject = {};\n" +
  "  for (const level of ['log', 'info', 'warn', 'error', 'debug']) consoleObject[level] = (...args) => { log(level, text(args)); };\n" +
  "  Object.defineProperty(globalThis, 'console', { value: Object.freeze(consoleObject), writable: false, configurable: false });\n" +
  "  const ctx = Object.freeze({\n" +
  "    user,\n" +
  "    query(sql, params) {\n" +
  "      if (typeof sql !== 'string') return Promise.reject(new TypeError('ctx.query(sql, params): sql must be a string'));\n" +
  "      if (params !== undefined && !Array.isArray(params)) return Promise.reject(new TypeError('ctx.query(sql, params): params must be an array'));\n" +
  "      return host('query', sql, stringify(params === undefined ? [] : params)).then((json) => parse(json));\n" +
  "    },\n" +
  "    report(id, args) {\n" +
  "      if (typeof id !== 'string') return Promise.reject(new TypeError('ctx.report(id, args): id must be a report id string'));\n" +
  "      if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) return Promise.reject(new TypeError('ctx.report(id, args): args must be an object'));\n" +
  "      return host('report', id, stringify(args === undefined ? {} : args)).then((json) => parse(json));\n" +
  "    },\n" +
  "  });\n" +
  "  const describe = (mod) => {\n" +
  "    const tool = mod ? mod.default : undefined;\n" +
  "    const problems = [];\n" +
  "    if (!tool || typeof tool !== 'object') return stringify({ problems: ['the default export must be an object { name, description, schema, run }'] });\n" +
  "    let schema = null;\n" +
  "    try { schema = stringify(tool.schema); } catch (e) { problems.push('schema must be plain JSON: ' + e.message); }\n" +
  "    return stringify({ problems, name: tool.name, description: tool.description, schema: schema === undefined ? null : schema, run: typeof tool.run === 'function' });\n" +
  "  };\n" +
  "  const invoke = (mod, argsJson) => Promise.resolve().then(() => mod.default.run(parse(argsJson), ctx)).then((result) => { const json = stringify(result === undefined ? null : result); return json === undefined ? 'null' : json; });\n" +
  "  return { describe, invoke };\n" +
  "})()";

// what a data call may carry to the parent at most (the parent's own bound, 512 KB, is lower)
const HOST_TEXT_MAX = 1048576;
let QuickJS;
let current;
let engineBytesAtLoad = 0;
// the size of the engine's WebAssembly memory (the module's view is replaced when it grows)
const engineBytes = () => engineMemory.buffer.byteLength;

function errorText(vm, handle) {
  try {
    const dumped = vm.dump(handle);
    if (dumped && typeof dumped === 'object') {
      const name = typeof dumped.name === 'string' ? dumped.name : 'Error';
      const message = typeof dumped.message === 'string' ? dumped.message : JSON.stringify(dumped);
      return str(name === 'Error' ? message : name + ': ' + message, 1000);
    }
    return str(dumped, 1000);
  } catch (err) {
    return 'the tool threw a value that cannot be described';
  } finally {
    handle.dispose();
  }
}

function runJob(job) {
  const limits = job.limits;
  const rt = QuickJS.newRuntime();
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
    if (engineBytes() - engineBytesAtLoad > limits.memoryBytes) {
      overMemory = true;
      return true;
    }
    return false;
  });
  rt.setModuleLoader((name) => ({
    error: new Error('import is not available to generated tools (asked for "' + str(name, 100) + '"); use ctx.report, ctx.query and plain JavaScript'),
  }));
  const vm = rt.newContext();
  const deferreds = new Map();
  const spent = [];
  let hostCalls = 0;
  let logLines = 0;
  let nextId = 0;
  let finished = false;
  let promise;
  let helpers;
  let mod;

  const enter = (fn) => {
    sliceStart = Date.now();
    try {
      return fn();
    } finally {
      used += Date.now() - sliceStart;
    }
  };
  const stageOf = (message) =>
    overMemory ? 'memory' : interrupted ? 'cpu' : /out of memory/i.test(message) ? 'memory' : null;
  const mb = Math.round(limits.memoryBytes / 1048576);
  const failed = (stage, message) =>
    finish({
      type: 'failed',
      job: job.job,
      stage,
      message: str(overMemory ? 'the tool used more than ' + mb + ' MB of memory' : stage === 'memory' ? message + ' (the limit is ' + mb + ' MB per run)' : message, 1000),
    });
  function finish(message) {
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
    } catch (err) {
      clean = false;
    }
    // an engine that could not be torn down cleanly, or whose memory grew past the limit (it
    // never shrinks, so every later job would start over it), is not reused: the parent
    // replaces us
    const reuse = clean && engineBytes() - engineBytesAtLoad <= limits.memoryBytes;
    send(reuse ? message : { ...message, recycle: true }, reuse ? undefined : () => process.exit(3));
  }

  const hostFn = vm.newFunction('__host', (opH, aH, bH) => {
    const op = vm.getString(opH);
    const a = vm.getString(aH);
    const b = vm.getString(bH);
    const deferred = vm.newPromise();
    hostCalls += 1;
    if (hostCalls > limits.maxHostCalls) {
      const err = vm.newError('this run made more than ' + limits.maxHostCalls + ' ctx.query/ctx.report calls; that is the limit per run');
      deferred.reject(err);
      err.dispose();
      spent.push(deferred);
      return deferred.handle;
    }
    // never cut: cut JSON is not JSON, and the parent bounds the arguments with a clear message
    if (a.length > HOST_TEXT_MAX || b.length > HOST_TEXT_MAX) {
      const err = vm.newError('the arguments of ctx.' + (op === 'report' ? 'report' : 'query') + ' are over ' + HOST_TEXT_MAX + ' characters; nothing was run');
      deferred.reject(err);
      err.dispose();
      spent.push(deferred);
      return deferred.handle;
    }
    const id = ++nextId;
    deferreds.set(id, deferred);
    send({ type: 'host', job: job.job, id, op: op === 'report' ? 'report' : 'query', a, b });
    return deferred.handle;
  });
  const logFn = vm.newFunction('__log', (levelH, textH) => {
    logLines += 1;
    if (logLines > limits.maxLogLines) return;
    send({ type: 'log', job: job.job, level: vm.getString(levelH), text: str(vm.getString(textH), 500) });
  });
  vm.setProp(vm.global, '__host', hostFn);
  vm.setProp(vm.global, '__log', logFn);
  hostFn.dispose();
  logFn.dispose();
  const userH = vm.newString(job.user);
  vm.setProp(vm.global, '__user', userH);
  userH.dispose();

  const prelude = enter(() => vm.evalCode(PRELUDE, 'prelude.js', { type: 'global', strict: true }));
  if (prelude.error) return failed('crash', 'the sandbox prelude failed: ' + errorText(vm, prelude.error));
  helpers = prelude.value;

  const evaluated = enter(() => vm.evalCode(job.source, job.name + '.mjs', { type: 'module', strict: true }));
  if (evaluated.error) {
    const message = errorText(vm, evaluated.error);
    return failed(stageOf(message) || 'import', message);
  }
  mod = evaluated.value;
  // a module with top-level await evaluates to a promise of its exports
  const modState = vm.getPromiseState(mod);
  if (!modState.notAPromise) {
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
    } else return failed('import', 'the module never finished loading (top-level await of something that never settles)');
  }

  const describeFn = vm.getProp(helpers, 'describe');
  const described = enter(() => vm.callFunction(describeFn, vm.undefined, mod));
  describeFn.dispose();
  if (described.error) {
    const message = errorText(vm, described.error);
    return failed(stageOf(message) || 'contract', message);
  }
  const contractJson = vm.getString(described.value);
  described.value.dispose();
  send({ type: 'contract', job: job.job, contract: str(contractJson, limits.outputBytes + 65536) });
  if (!job.call) return finish({ type: 'done', job: job.job, called: false, result: 'null' });
  const contract = JSON.parse(contractJson);
  if (contract.problems.length > 0 || !contract.run) return finish({ type: 'done', job: job.job, called: false, result: 'null' });

  const invokeFn = vm.getProp(helpers, 'invoke');
  const argsH = vm.newString(job.args);
  const invoked = enter(() => vm.callFunction(invokeFn, vm.undefined, mod, argsH));
  invokeFn.dispose();
  argsH.dispose();
  if (invoked.error) {
    const message = errorText(vm, invoked.error);
    return failed(stageOf(message) || 'run', message);
  }
  promise = invoked.value;
  current = { job: job.job, pump, reply };
  pump();

  function pump() {
    if (finished) return;
    const jobs = enter(() => rt.executePendingJobs());
    if (jobs.error) {
      const message = errorText(vm, jobs.error);
      return failed(stageOf(message) || 'run', message);
    }
    const state = vm.getPromiseState(promise);
    if (state.type === 'fulfilled') {
      const json = vm.getString(state.value);
      state.value.dispose();
      if (json.length > limits.outputBytes)
        return failed('output', 'the result is ' + json.length + ' characters of JSON, over the ' + limits.outputBytes + '-character limit; return less (fewer rows, a summary)');
      return finish({ type: 'done', job: job.job, called: true, result: json });
    }
    if (state.type === 'rejected') {
      const message = errorText(vm, state.error);
      return failed(stageOf(message) || 'run', message);
    }
    if (deferreds.size === 0)
      return failed('run', 'run() returned a promise that can never settle (it awaits nothing the sandbox provides)');
  }

  function reply(message) {
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

function valid(message) {
  if (!message || typeof message !== 'object') return false;
  if (message.type === 'run')
    return typeof message.job === 'number' && typeof message.source === 'string' && typeof message.name === 'string' && typeof message.args === 'string' && typeof message.user === 'string' && typeof message.call === 'boolean' && message.limits && typeof message.limits === 'object';
  if (message.type === 'reply')
    return typeof message.job === 'number' && typeof message.id === 'number' && typeof message.ok === 'boolean' && (message.ok ? typeof message.value === 'string' : typeof message.error === 'string');
  return false;
}

process.on('message', (message) => {
  if (!valid(message)) return;
  try {
    if (message.type === 'run') {
      if (current) return send({ type: 'failed', job: message.job, stage: 'crash', message: 'the sandbox was busy' });
      runJob(message);
    } else if (current && current.job === message.job) current.reply(message);
  } catch (err) {
    // anything unexpected in the engine glue: report it and let the parent replace this child
    send({ type: 'failed', job: message.job, stage: 'crash', message: str(err && err.message ? err.message : err, 500), recycle: true }, () => process.exit(3));
  }
});
process.on('disconnect', () => process.exit(0));

getQuickJS().then(
  (engine) => {
    QuickJS = engine;
    engineBytesAtLoad = engineBytes();
    send({ type: 'ready' });
  },
  (err) => {
    send({ type: 'fatal', message: str(err && err.message ? err.message : err, 500) });
    process.exit(2);
  },
);
`;
