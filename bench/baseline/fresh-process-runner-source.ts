/**
 * The program the sandboxed child runs (node -e). It imports the tool module, reports its
 * contract, and, when asked, runs it once; `ctx.query` is a round trip to the parent over
 * IPC, which is the only way to data. Written as plain CommonJS: nothing to compile.
 */
export const RUNNER_SOURCE = String.raw`
'use strict';
const { pathToFileURL } = require('node:url');

// Node 20's permission model stops file writes, child processes, workers and native addons,
// but not sockets, signals or the inspector. Close those before the tool's code loads: the
// originals are never reachable from the tool.
(function lockDown() {
  const denied = (what) => function () {
    const err = new Error(what + ' is not allowed in a generated tool; use ctx.query for data');
    err.code = 'ERR_ACCESS_DENIED';
    throw err;
  };
  const lock = (object, key, what) => Object.defineProperty(object, key, { value: denied(what), writable: false, configurable: false });
  const net = require('node:net');
  lock(net.Socket.prototype, 'connect', 'opening a network connection');
  lock(net, 'connect', 'opening a network connection');
  lock(net, 'createConnection', 'opening a network connection');
  lock(net, 'createServer', 'listening on the network');
  lock(require('node:dgram'), 'createSocket', 'opening a UDP socket');
  lock(require('node:tls'), 'connect', 'opening a TLS connection');
  lock(require('node:http'), 'request', 'making an HTTP request');
  lock(require('node:http'), 'get', 'making an HTTP request');
  lock(require('node:https'), 'request', 'making an HTTPS request');
  lock(require('node:https'), 'get', 'making an HTTPS request');
  lock(require('node:inspector'), 'open', 'opening the inspector');
  lock(process, 'kill', 'sending signals');
  lock(process, '_kill', 'sending signals');
  lock(process, 'abort', 'aborting the process');
  lock(process, 'dlopen', 'loading native code');
  for (const key of ['fetch', 'WebSocket', 'EventSource']) {
    if (key in globalThis) Object.defineProperty(globalThis, key, { value: denied(key), writable: false, configurable: false });
  }
  // ESM named imports of builtins are snapshots; bring them in line with the locked objects.
  require('node:module').syncBuiltinESMExports();
})();

const pending = new Map();
let nextId = 0;
const send = (message) => process.send(message);
const describe = (err) => (err && err.message ? String(err.message) : String(err));

function query(sql, params) {
  if (typeof sql !== 'string') return Promise.reject(new Error('ctx.query(sql, params): sql must be a string'));
  if (params !== undefined && !Array.isArray(params)) return Promise.reject(new Error('ctx.query(sql, params): params must be an array'));
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    send({ type: 'query', id, sql, params: params || [] });
  });
}

async function run(job) {
  let tool;
  try {
    const mod = await import(pathToFileURL(job.file).href);
    tool = mod.default;
  } catch (err) {
    return send({ type: 'failed', stage: 'import', message: describe(err) });
  }
  const problems = [];
  if (!tool || typeof tool !== 'object') problems.push('the default export must be an object { name, description, schema, run }');
  else {
    if (tool.name !== job.name) problems.push('name must equal the file name "' + job.name + '"; got ' + JSON.stringify(tool.name));
    if (typeof tool.description !== 'string' || tool.description.trim() === '') problems.push('description must be a non-empty string');
    if (!tool.schema || typeof tool.schema !== 'object' || tool.schema.type !== 'object') problems.push("schema must be a JSON Schema object with type: 'object'");
    if (typeof tool.run !== 'function') problems.push('run must be a function run(args, ctx)');
  }
  if (problems.length > 0) return send({ type: 'failed', stage: 'contract', message: problems.join('; ') });
  let schema;
  try {
    schema = JSON.parse(JSON.stringify(tool.schema));
  } catch (err) {
    return send({ type: 'failed', stage: 'contract', message: 'schema must be plain JSON: ' + describe(err) });
  }
  send({ type: 'contract', description: tool.description, schema });
  if (!job.call) return send({ type: 'done', called: false });
  try {
    const result = await tool.run(job.args, Object.freeze({ query }));
    const json = JSON.stringify(result === undefined ? null : result);
    send({ type: 'done', called: true, result: JSON.parse(json) });
  } catch (err) {
    send({ type: 'failed', stage: 'run', message: describe(err) });
  }
}

process.on('message', (message) => {
  if (message.type === 'reply') {
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (!waiter) return;
    if (message.error) waiter.reject(new Error(message.error));
    else waiter.resolve(message.rows);
    return;
  }
  if (message.type === 'run') {
    run(message).catch((err) => send({ type: 'failed', stage: 'run', message: describe(err) }));
  }
});
send({ type: 'ready' });
`;
