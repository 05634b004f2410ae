import pino from 'pino';
import type { DestinationStream, Logger } from 'pino';

/** Loggers made by createLogger: their line shape is known (see writeAccessLine). */
const OURS = new WeakSet<Logger>();

/** Marks a logger whose lines are pino's JSON with our options (createLogger's). */
export function markOurs(log: Logger): void {
  OURS.add(log);
}

/** The access line's fields, in the order they are written (undefined ones are left out). */
export interface AccessFields {
  trace_id: string;
  method: string;
  route: string;
  status: number;
  tenant?: string;
  user?: string;
  tool?: string;
  kind?: string;
  format?: string;
  outcome: string;
  duration_ms: number;
  bytes?: number;
  fast_lane?: boolean;
}

/**
 * The access line (`msg: "request"`), at info: the same JSON `log.info(fields, 'request')`
 * writes (level, time, the fields in order, msg), serialised here in one template and
 * handed to the logger's destination. pino's generic serialiser (a loop over the fields,
 * a type switch per value, the mixin) was most of the line's cost on the warm list
 * (bench/RESULTS.md, ops). A logger not made by createLogger gets the plain pino call.
 */
export function writeAccessLine(log: Logger, f: AccessFields): void {
  if (!log.isLevelEnabled('info')) return;
  if (!OURS.has(log)) return void log.info(f, 'request');
  const stream = (log as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym];
  stream.write(
    `{"level":"info"${isoTime()},"trace_id":${str(f.trace_id)}${middle(f)},"duration_ms":${num(f.duration_ms)}${
      f.bytes === undefined ? '' : `,"bytes":${num(f.bytes)}`
    }${f.fast_lane === undefined ? '' : `,"fast_lane":${f.fast_lane}`},"msg":"request"}\n`,
  );
}

type Middle = Pick<
  AccessFields,
  'method' | 'route' | 'status' | 'tenant' | 'user' | 'tool' | 'kind' | 'format' | 'outcome'
>;

/** The last line's fields from method to outcome, and their JSON. */
let memo: (Middle & { json: string }) | undefined;

/**
 * The JSON of the fields from method to outcome, made once for a run of alike requests
 * (same route, caller, outcome...): most of the line is then one string already made.
 */
function middle(f: AccessFields): string {
  if (memo !== undefined && sameMiddle(memo, f)) return memo.json;
  const json = `,"method":${str(f.method)},"route":${str(f.route)},"status":${num(f.status)}${
    f.tenant === undefined ? '' : `,"tenant":${str(f.tenant)}`
  }${f.user === undefined ? '' : `,"user":${str(f.user)}`}${
    f.tool === undefined ? '' : `,"tool":${str(f.tool)}`
  }${f.kind === undefined ? '' : `,"kind":${str(f.kind)}`}${
    f.format === undefined ? '' : `,"format":${str(f.format)}`
  },"outcome":${str(f.outcome)}`;
  const { method, route, status, tenant, user, tool, kind, format, outcome } = f;
  memo = { method, route, status, tenant, user, tool, kind, format, outcome, json };
  return json;
}

function sameMiddle(a: Middle, b: Middle): boolean {
  return (
    a.method === b.method &&
    a.route === b.route &&
    a.status === b.status &&
    a.tenant === b.tenant &&
    a.user === b.user &&
    a.tool === b.tool &&
    a.kind === b.kind &&
    a.format === b.format &&
    a.outcome === b.outcome
  );
}

/** A JSON string: quoted as is when no character needs escaping (most ids), else stringify. */
function str(value: string): string {
  if (value.length > 100) return JSON.stringify(value);
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 32 || c === 34 || c === 92 || (c >= 0xd800 && c <= 0xdfff))
      return JSON.stringify(value);
  }
  return `"${value}"`;
}

/**
 * A JSON number as pino writes one (a non-finite number is null). Whole tenths (statuses,
 * byte counts, durations in ms to 0.1) are written from integers, the same text as String()
 * but without its float-to-decimal conversion (a visible share of the access line).
 */
function num(value: number): string {
  const tenths = Math.round(value * 10);
  if (tenths >= 0 && tenths < 1e12 && tenths / 10 === value) {
    const digit = tenths % 10;
    return digit === 0 ? `${tenths / 10}` : `${(tenths - digit) / 10}.${digit}`;
  }
  return Number.isFinite(value) ? String(value) : 'null';
}

let lastMs = Number.NaN;
let lastTime = '';
let secondStart = Number.NaN;
let secondPrefix = '';
/** '000' .. '999' */
const MILLIS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

/**
 * pino's `isoTime` (`,"time":"<ISO 8601>"`), formatted once per millisecond: under load many
 * lines share a millisecond, and Date#toISOString was a visible share of each line.
 */
export function isoTime(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = isoTimeAt(now);
  }
  return lastTime;
}

/**
 * The field for the time `now` (ms since the epoch): the same text as
 * `new Date(now).toISOString()`, whose part up to the seconds is made once per second.
 */
export function isoTimeAt(now: number): string {
  const ms = now - secondStart;
  if (!(ms >= 0 && ms < 1000)) {
    secondStart = now - (((now % 1000) + 1000) % 1000);
    // `YYYY-MM-DDTHH:MM:SS.` (or an extended year) without `000Z`
    secondPrefix = `,"time":"${new Date(secondStart).toISOString().slice(0, -4)}`;
  }
  return `${secondPrefix}${MILLIS[now - secondStart]}Z"`;
}
