import type { NamedStatement } from './prepared-statements';

/** A result column as the driver describes it (PGlite and node-postgres alike). */
export interface SqlField {
  name: string;
  dataTypeID: number;
}

/** A read of untrusted SQL: the settings that contain it, the query, and what it may return. */
export interface GuardedReadRequest {
  /**
   * Statements run before the query in the same transaction (`SELECT set_config(..., true)`,
   * read-only first), written by the gateway from validated identifiers. On Postgres they and
   * the query form the implicit transaction of one Sync; PGlite opens one and rolls it back.
   */
  setup: readonly string[];
  text: string;
  /** JS values; the pg adapter maps them to wire text (prepareQueryValue) before writing */
  values: readonly unknown[];
  /** Bytes of row data the caller accepts; past it the read stops with ResultTooLargeError. */
  maxBytes: number;
  /** The client gives up this long after sending; the connection is then dropped. */
  timeoutMs: number;
  /**
   * The server-side bound, for a source whose driver sets it itself (MySQL, issue #42: Postgres
   * takes it in `setup`). Default: a second under `timeoutMs`.
   */
  statementTimeoutMs?: number;
  /**
   * Run `text` as this named statement (parsed once per connection, ADR 0005) instead of the
   * unnamed one. Only for SQL fixed per report version; the name must cover the tenant.
   */
  statement?: NamedStatement;
  /**
   * Aborted: the read is given up. Not yet on a connection, it never starts; running, the
   * server is asked to cancel it (a CancelRequest on a connection of its own, so a full pool
   * does not delay it) and the connection is dropped rather than reused.
   */
  signal?: AbortSignal;
}

/** The read was given up because its signal was aborted. */
export class ReadCancelledError extends Error {
  readonly code = 'READ_CANCELLED';
  constructor() {
    super('the read was cancelled');
  }
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

/**
 * The server and this connection's bookkeeping of named statements disagree (a name lost to
 * DEALLOCATE / DISCARD, one prepared behind the gateway's back, a cached plan whose result type
 * changed with the schema). The query did not run (the error came at its Parse or Bind); the
 * connection must be dropped and the read may be retried without the named statement.
 */
export class StatementOutOfSyncError extends Error {
  constructor(override readonly cause: Error) {
    super(`named statement out of sync with the server: ${cause.message}`);
  }
}
