/**
 * Runs inside the engine before the tool's module: the only doors to the outside. This is the
 * guest's code, evaluated by QuickJS (not by Node), so it is text here; it hides the host
 * functions `__host`, `__log` and `__user` behind `ctx` and `console`, and gives the child the
 * `describe` and `invoke` helpers it calls with the tool's module.
 */
export const PRELUDE =
  '(function () {\n' +
  "  'use strict';\n" +
  '  const host = globalThis.__host, log = globalThis.__log, userJson = globalThis.__user;\n' +
  '  const stringify = JSON.stringify, parse = JSON.parse;\n' +
  '  delete globalThis.__host; delete globalThis.__log; delete globalThis.__user;\n' +
  "  const freeze = (v) => { if (v && typeof v === 'object') { Object.values(v).forEach(freeze); Object.freeze(v); } return v; };\n" +
  '  const user = freeze(JSON.parse(userJson));\n' +
  "  const text = (args) => args.map((a) => { if (typeof a === 'string') return a; try { return JSON.stringify(a); } catch (e) { return String(a); } }).join(' ');\n" +
  '  const consoleObject = {};\n' +
  "  for (const level of ['log', 'info', 'warn', 'error', 'debug']) consoleObject[level] = (...args) => { log(level, text(args)); };\n" +
  "  Object.defineProperty(globalThis, 'console', { value: Object.freeze(consoleObject), writable: false, configurable: false });\n" +
  '  const ctx = Object.freeze({\n' +
  '    user,\n' +
  '    query(sql, params) {\n' +
  "      if (typeof sql !== 'string') return Promise.reject(new TypeError('ctx.query(sql, params): sql must be a string'));\n" +
  "      if (params !== undefined && !Array.isArray(params)) return Promise.reject(new TypeError('ctx.query(sql, params): params must be an array'));\n" +
  "      return host('query', sql, stringify(params === undefined ? [] : params)).then((json) => parse(json));\n" +
  '    },\n' +
  '    report(id, args) {\n' +
  "      if (typeof id !== 'string') return Promise.reject(new TypeError('ctx.report(id, args): id must be a report id string'));\n" +
  "      if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) return Promise.reject(new TypeError('ctx.report(id, args): args must be an object'));\n" +
  "      return host('report', id, stringify(args === undefined ? {} : args)).then((json) => parse(json));\n" +
  '    },\n' +
  '  });\n' +
  '  const describe = (mod) => {\n' +
  '    const tool = mod ? mod.default : undefined;\n' +
  '    const problems = [];\n' +
  "    if (!tool || typeof tool !== 'object') return stringify({ problems: ['the default export must be an object { name, description, schema, run }'] });\n" +
  '    let schema = null;\n' +
  "    try { schema = stringify(tool.schema); } catch (e) { problems.push('schema must be plain JSON: ' + e.message); }\n" +
  "    return stringify({ problems, name: tool.name, description: tool.description, schema: schema === undefined ? null : schema, run: typeof tool.run === 'function' });\n" +
  '  };\n' +
  "  const invoke = (mod, argsJson) => Promise.resolve().then(() => mod.default.run(parse(argsJson), ctx)).then((result) => { const json = stringify(result === undefined ? null : result); return json === undefined ? 'null' : json; });\n" +
  '  return { describe, invoke };\n' +
  '})()';
