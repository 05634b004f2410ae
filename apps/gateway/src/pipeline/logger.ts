import type { LoggerService } from '@nestjs/common';
import pino from 'pino';
import type { DestinationStream, Logger } from 'pino';
import pretty from 'pino-pretty';
import type { GatewaySettings } from '../config/gateway.config';
import { currentRequest } from './request-context';

/**
 * The gateway's one logger: pino JSON lines (pretty with LOG_FORMAT=pretty), each stamped
 * with the trace id of the request it belongs to. Callers log names and codes only: never a
 * token, a secret, an argument value or a result row (see docs/operations.md).
 */
export function createLogger(
  settings: Pick<GatewaySettings, 'log'>,
  destination?: DestinationStream,
): Logger {
  const stream =
    destination ??
    (settings.log.format === 'pretty'
      ? pretty({ colorize: process.stdout.isTTY, sync: true })
      : batchedStdout());
  const logger = pino(
    {
      level: settings.log.level,
      base: undefined,
      timestamp: isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: traceIdMixin,
      mixinMergeStrategy: mergeTraceId,
    },
    stream,
  );
  OURS.add(logger);
  return logger;
}

/** Loggers made by createLogger: their line shape is known (see writeAccessLine). */
const OURS = new WeakSet<Logger>();

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
    `{"level":"info"${isoTime()},"trace_id":${str(f.trace_id)},"method":${str(f.method)},"route":${str(f.route)},"status":${num(f.status)}${
      f.tenant === undefined ? '' : `,"tenant":${str(f.tenant)}`
    }${f.user === undefined ? '' : `,"user":${str(f.user)}`}${
      f.tool === undefined ? '' : `,"tool":${str(f.tool)}`
    }${f.kind === undefined ? '' : `,"kind":${str(f.kind)}`}${
      f.format === undefined ? '' : `,"format":${str(f.format)}`
    },"outcome":${str(f.outcome)},"duration_ms":${num(f.duration_ms)}${
      f.bytes === undefined ? '' : `,"bytes":${num(f.bytes)}`
    }${f.fast_lane === undefined ? '' : `,"fast_lane":${f.fast_lane}`},"msg":"request"}\n`,
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

/** What the mixin returns when it has nothing to add (never written to). */
const NOTHING: Record<string, never> = Object.freeze({}) as Record<string, never>;

/**
 * The trace id of the request the line belongs to, unless the line names it already (the
 * access line does: it is written when the response closes, and carries it as its first
 * field, so no object is made and merged for it).
 */
function traceIdMixin(line: object): object {
  if ((line as { trace_id?: unknown }).trace_id !== undefined) return NOTHING;
  const request = currentRequest();
  return request ? { trace_id: request.traceId } : NOTHING;
}

/** pino's default merge (the line's fields over the mixin's), skipped when there is none. */
function mergeTraceId(line: object, mixin: object): object {
  return mixin === NOTHING ? line : Object.assign(mixin, line);
}

/** How long a log line may wait in the batch before it is written. */
const FLUSH_EVERY_MS = 200;
/** A batch is written once the next line might not fit in this many bytes. */
const BATCH_BYTES = 64 * 1024;

/**
 * Standard output in 64 KB batches, each one write(2) on this thread: no thread-pool hop per
 * batch, which cost more CPU than the write itself, and one system call (and one wake-up of
 * the reader) per ~200 access lines (bench/RESULTS.md, ops). A quiet gateway still shows
 * every line within FLUSH_EVERY_MS (start-up, warnings); flushed at shutdown.
 */
function batchedStdout(): DestinationStream {
  // sonic-boom (what pino.destination is) does the writes: partial writes, EAGAIN, EPIPE
  const batch = new LineBatch(bytesTo(1), BATCH_BYTES);
  const timer = setInterval(() => {
    try {
      batch.flush();
    } catch {
      clearInterval(timer); // closed at shutdown
    }
  }, FLUSH_EVERY_MS).unref();
  return batch;
}

/** A synchronous sonic-boom (pino.destination) that writes buffers (a file or an fd). */
export function bytesTo(dest: number | string): { write(chunk: Buffer): unknown } {
  const out = pino.destination({ dest, sync: true, contentMode: 'buffer' });
  // in buffer mode sonic-boom's write takes a Buffer; its types only name the string mode
  return out as unknown as { write(chunk: Buffer): unknown };
}

/**
 * Lines encoded as UTF-8 into one buffer as they come, handed to `out` (which writes at
 * once) when the next line might not fit: no string joined, measured or encoded again per
 * batch (sonic-boom's string mode measures the pending text on every line and encodes each
 * batch twice; bench/RESULTS.md, ops). Each batch is a new buffer `out` may keep.
 */
export class LineBatch implements DestinationStream {
  private buffer: Buffer;
  private used = 0;

  constructor(
    private readonly out: { write(chunk: Buffer): unknown },
    private readonly size: number,
  ) {
    this.buffer = Buffer.allocUnsafeSlow(size);
  }

  write(line: string): void {
    // a UTF-16 code unit is at most 3 bytes of UTF-8
    const most = line.length * 3;
    if (this.used + most > this.size) {
      this.flush();
      if (most > this.size) return void this.out.write(Buffer.from(line));
    }
    this.used += this.buffer.write(line, this.used);
  }

  /** Writes what is pending (pino's `logger.flush` calls this). */
  flush(done?: (err?: Error) => void): void {
    if (this.used > 0) {
      const chunk = this.buffer.subarray(0, this.used);
      this.buffer = Buffer.allocUnsafeSlow(this.size);
      this.used = 0;
      this.out.write(chunk);
    }
    done?.();
  }
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

/** Nest's own logging (start-up, warnings of the libraries) into the same pino logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.logger.info({ context: contextOf(context) }, text(message));
  }
  error(message: unknown, ...rest: unknown[]): void {
    // a start-up failure reaches the caller, which prints one line naming the cause (no stack)
    if (rest[rest.length - 1] === 'ExceptionHandler') return;
    this.logger.error({ context: contextOf(rest[rest.length - 1]) }, text(message));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context: contextOf(context) }, text(message));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug({ context: contextOf(context) }, text(message));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context: contextOf(context) }, text(message));
  }
  fatal(message: unknown, context?: string): void {
    this.logger.fatal({ context: contextOf(context) }, text(message));
  }
}

function contextOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function text(message: unknown): string {
  return typeof message === 'string'
    ? message
    : message instanceof Error
      ? message.message
      : JSON.stringify(message);
}
