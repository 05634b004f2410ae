import type { Socket } from 'node:net';
import pg from 'pg';
import type { SqlField } from './connection';

/** A read of untrusted SQL: the settings that contain it, the query, and what it may return. */
export interface GuardedReadRequest {
  /**
   * Statements run before the query in the same transaction (BEGIN ... SET LOCAL ...), written
   * by the gateway from validated identifiers. The transaction is always rolled back.
   */
  setup: readonly string[];
  text: string;
  /** JS values; the pg adapter maps them to wire text (prepareQueryValue) before writing */
  values: readonly unknown[];
  /** Bytes of row data the caller accepts; past it the read stops with ResultTooLargeError. */
  maxBytes: number;
  /** The client gives up this long after sending; the connection is then dropped. */
  timeoutMs: number;
}

export interface GuardedReadResult {
  fields: SqlField[];
  /** Rows in column order (rowMode 'array'), values parsed like every other query. */
  rows: unknown[][];
  /** Wire bytes of the rows' values, the measure the byte cap is checked against first. */
  bytes: number;
}

/** The result passed the byte cap; nothing of it is kept. */
export class ResultTooLargeError extends Error {
  readonly code = 'RESULT_TOO_LARGE';
  constructor(
    readonly atLeastBytes: number,
    readonly limit: number,
  ) {
    super(`the result is at least ${atLeastBytes} bytes, over the ${limit}-byte limit`);
  }
}

/** What the socket may carry past the byte cap (protocol framing, the row that crossed it). */
const SOCKET_SLACK = 64 * 1024;

interface Connection {
  stream: Socket;
  parse(query: { text: string; name?: string; types?: number[] }): void;
  bind(config: { values?: unknown[] }): void;
  describe(msg: { type: 'P' | 'S'; name?: string }): void;
  execute(config: { rows?: number }): void;
  sync(): void;
}

interface RowDescription {
  fields: Array<{ name: string; dataTypeID: number }>;
}

type Parser = (value: string) => unknown;
type GetTypeParser = (oid: number, format: 'text') => Parser;

/** pg's own mapping of JS values to wire text (dates, arrays, JSON), as its Query uses it. */
export const prepareQueryValue = (
  pg as unknown as { utils: { prepareValue: (value: unknown) => unknown } }
).utils.prepareValue;

/**
 * One round trip for the whole call: the setup statements, the query (extended protocol, so its
 * values are never spliced into text) and the ROLLBACK go in one write, closed by one Sync. An
 * error anywhere skips everything up to the Sync, so the query never runs without its setup.
 * Rows are counted as they arrive; the socket is watched too, so a single huge row cannot be
 * buffered whole: past the cap plus a little the connection is dropped (the caller must then
 * destroy the client, which `needsRollback`/`broken` tell it).
 */
export class GuardedRead implements pg.Submittable {
  /** The server left the transaction open (an error before the trailing ROLLBACK ran). */
  needsRollback = false;
  /** The connection was given up on (too large, client timeout); it must not be reused. */
  broken: Error | undefined;
  readonly done: Promise<GuardedReadResult>;

  private resolve!: (result: GuardedReadResult) => void;
  private reject!: (err: Error) => void;
  private settled = false;
  private fields: SqlField[] = [];
  private parsers: Parser[] = [];
  private rows: unknown[][] = [];
  private rowBytes = 0;
  private socketBytes = 0;
  private error: Error | undefined;
  private stream: Socket | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly onData = (chunk: Buffer): void => {
    this.socketBytes += chunk.length;
    if (this.socketBytes > this.request.maxBytes * 2 + SOCKET_SLACK)
      this.abandon(new ResultTooLargeError(this.socketBytes, this.request.maxBytes));
  };

  constructor(
    private readonly request: GuardedReadRequest,
    private readonly getTypeParser: GetTypeParser,
  ) {
    this.done = new Promise<GuardedReadResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  submit(driverConnection: pg.Connection): void {
    // @types/pg describes an older Connection; this is the shape pg 8 has
    const connection = driverConnection as unknown as Connection;
    const stream = connection.stream;
    this.stream = stream;
    stream.cork();
    try {
      for (const text of this.request.setup) {
        connection.parse({ text });
        connection.bind({});
        connection.execute({});
      }
      connection.parse({ text: this.request.text, types: [] });
      connection.bind({ values: [...this.request.values] });
      connection.describe({ type: 'P' });
      connection.execute({ rows: 0 });
      connection.parse({ text: 'ROLLBACK' });
      connection.bind({});
      connection.execute({});
      connection.sync();
    } finally {
      stream.uncork();
    }
    stream.on('data', this.onData);
    this.timer = setTimeout(
      () => this.abandon(new Error('Query read timeout')),
      this.request.timeoutMs,
    );
  }

  handleRowDescription(msg: RowDescription): void {
    this.fields = msg.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID }));
    this.parsers = this.fields.map((f) => this.getTypeParser(f.dataTypeID, 'text'));
  }

  handleDataRow(msg: { length: number; fields: Array<string | null> }): void {
    if (this.error) return;
    this.rowBytes += msg.length;
    if (this.rowBytes > this.request.maxBytes) {
      // stop keeping rows; the rest of the answer is bounded by the socket watch
      this.rows = [];
      this.error = new ResultTooLargeError(this.rowBytes, this.request.maxBytes);
      return;
    }
    const values = msg.fields;
    const row = new Array<unknown>(values.length);
    for (let i = 0; i < values.length; i++) {
      const value = values[i];
      row[i] = value === null ? null : this.parsers[i](value);
    }
    this.rows.push(row);
  }

  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}

  /**
   * pg drops the active query on an ErrorResponse, so no ReadyForQuery reaches it: the answer is
   * settled here. The server skipped the trailing ROLLBACK, so the transaction may be open.
   */
  handleError(err: Error): void {
    if (this.settled) return;
    this.error ??= err;
    if (!this.broken) this.needsRollback = true;
    this.finish();
  }

  handleReadyForQuery(): void {
    this.finish();
  }

  private abandon(err: Error): void {
    if (this.settled) return;
    this.broken = err;
    this.error ??= err;
    this.rows = [];
    this.stream?.destroy();
    this.finish();
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.stream?.removeListener('data', this.onData);
    if (this.error) this.reject(this.error);
    else this.resolve({ fields: this.fields, rows: this.rows, bytes: this.rowBytes });
  }
}
