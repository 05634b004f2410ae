import type { LoggerService } from '@nestjs/common';
import pino from 'pino';
import type { DestinationStream, Logger } from 'pino';
import pretty from 'pino-pretty';
import type { GatewaySettings } from '../../config/gateway.config';
import { isoTime, markOurs } from './access-line';
import { currentRequest } from '../request-context';

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
  markOurs(logger);
  return logger;
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
