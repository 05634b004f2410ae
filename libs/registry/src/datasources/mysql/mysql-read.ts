import { ReadCancelledError, ResultTooLargeError } from '@app/db';
import type { GuardedReadRequest, GuardedReadResult } from '@app/db';
import type { Pool, PoolConnection } from 'mysql2';
import { mysqlFields, mysqlKind, mysqlRow, rowBytes } from './mysql-values';
import type { MysqlField } from './mysql-values';

/** A query of the gateway's own on `c` (no rows wanted). */
export function run(c: PoolConnection, text: string): Promise<void> {
  return new Promise((resolve, reject) => c.query(text, (err) => (err ? reject(err) : resolve())));
}

/**
 * A connection of the pool within `waitMs`, unless `signal` aborts first: a read waiting behind
 * a full pool is given up at once, and the connection it would have had goes straight back.
 */
export function connection(
  pool: Pool,
  waitMs: number,
  signal?: AbortSignal,
): Promise<PoolConnection> {
  if (signal?.aborted) return Promise.reject(new ReadCancelledError());
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | null, c?: PoolConnection) => {
      if (settled) {
        c?.release();
        return;
      }
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(c!);
    };
    const onAbort = () => finish(new ReadCancelledError());
    const timer = setTimeout(
      () => finish(Object.assign(new Error('connection timeout'), { code: 'ETIMEDOUT' })),
      waitMs,
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    pool.getConnection((err, c) => {
      if (err) finish(err);
      else if (settled) c.release();
      else finish(null, c);
    });
  });
}

/**
 * The report's statement (prepared: its values travel apart from its text) with its rows read as
 * they arrive against the byte cap. Past the cap, past the client's timeout, or when the caller
 * gives up, the server is told to stop the statement (KILL QUERY on a connection of its own) and
 * the read fails; the caller then drops this connection.
 */
export function streamRows(
  c: PoolConnection,
  request: GuardedReadRequest,
  kill: (threadId: number | null) => Promise<void>,
): Promise<GuardedReadResult> {
  return new Promise((resolve, reject) => {
    let kinds: ReturnType<typeof mysqlKind>[] = [];
    let fields: MysqlField[] = [];
    const rows: unknown[][] = [];
    let bytes = 0;
    let done = false;
    const stop = (err: Error) => {
      if (done) return;
      done = true;
      cleanup();
      // the server is told on a connection of its own; the caller need not wait for it
      void kill(c.threadId);
      reject(err);
    };
    const onAbort = () => stop(new ReadCancelledError());
    const timer = setTimeout(
      () => stop(Object.assign(new Error('Query read timeout'), { code: '57014' })),
      request.timeoutMs,
    );
    const cleanup = () => {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
    };
    if (request.signal?.aborted) return reject(new ReadCancelledError());
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const query = c.execute({ sql: request.text, values: [...request.values], rowsAsArray: true });
    query.on('fields', (described: MysqlField[]) => {
      fields = described;
      kinds = described.map(mysqlKind);
    });
    query.on('result', (row: unknown) => {
      if (done) return;
      const values = row as unknown[];
      bytes += rowBytes(values);
      if (bytes > request.maxBytes) return stop(new ResultTooLargeError(bytes, request.maxBytes));
      rows.push(mysqlRow(kinds, values));
    });
    query.on('error', (err: Error) => {
      if (done) return;
      done = true;
      cleanup();
      reject(err);
    });
    query.on('end', () => {
      if (done) return;
      done = true;
      cleanup();
      resolve({ fields: mysqlFields(fields), rows, bytes });
    });
  });
}
