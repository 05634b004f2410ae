import pg from 'pg';
import { sendCancelRequest } from './cancel-request';
import {
  GuardedRead,
  prepareQueryValue,
  ReadCancelledError,
  ResultTooLargeError,
  StatementOutOfSyncError,
} from './guarded-read';
import type { GuardedReadRequest, GuardedReadResult } from './guarded-read';
import { PreparedStatements } from './prepared-statements';
import { VALUE_PARSERS } from './type-parsers';

/*
 * Guarded reads over a node-postgres pool (the gateway's own and a tenant source's): a
 * connection per read, cancelled with a CancelRequest when the read's signal aborts, dropped
 * when the read broke it.
 */

/** The gateway's value parsers first, then pg's own (every pool of the gateway uses them). */
export const pgTypes = {
  getTypeParser: (oid: number, format?: string) =>
    VALUE_PARSERS[oid] ?? pg.types.getTypeParser(oid, format as 'text'),
};

/** DatabaseHandle.guardedRead over the pool, with each connection's named statements. */
export function guardedReader(
  pool: pg.Pool,
  statementLimit: number,
): (request: GuardedReadRequest) => Promise<GuardedReadResult> {
  // Named statements each connection holds, as the server confirmed them; they go with it.
  const prepared = new WeakMap<pg.PoolClient, PreparedStatements>();
  const statementsOf = (client: pg.PoolClient): PreparedStatements => {
    let statements = prepared.get(client);
    if (!statements) prepared.set(client, (statements = new PreparedStatements(statementLimit)));
    return statements;
  };
  return async (request) => {
    // values are mapped before anything is written, so a bad one cannot leave half a pipeline
    const values = request.values.map((v) => prepareQueryValue(v));
    try {
      return await readOnce(pool, { ...request, values }, statementsOf);
    } catch (err) {
      // The query did not run (its Parse or Bind failed) and that connection is gone: once
      // more without the named statement, which cannot be out of sync on any connection.
      if (!(err instanceof StatementOutOfSyncError)) throw err;
      return readOnce(pool, { ...request, values, statement: undefined }, statementsOf);
    }
  };
}

/** One guarded read on a connection of the pool, which is dropped if the read broke it. */
async function readOnce(
  pool: pg.Pool,
  request: GuardedReadRequest,
  statementsOf: (client: pg.PoolClient) => PreparedStatements,
): Promise<GuardedReadResult> {
  const { signal } = request;
  const client = await connectUnlessAborted(pool, signal);
  // a dropped connection makes the client emit 'error'; the read reports it instead
  const onError = (): void => undefined;
  client.on('error', onError);
  const statements = request.statement ? statementsOf(client) : undefined;
  const read = new GuardedRead(request, pgTypes.getTypeParser, statements);
  let broken: Error | undefined;
  let cancelled: Promise<void> | undefined;
  const onAbort = (): void => {
    cancelled ??= sendCancelRequest(client);
  };
  try {
    if (signal?.aborted) throw new ReadCancelledError();
    signal?.addEventListener('abort', onAbort, { once: true });
    void client.query(read);
    return await read.done;
  } catch (err) {
    // bookkeeping that disagrees with the server is not repaired in place: drop it all
    if (err instanceof StatementOutOfSyncError) broken = err;
    else if (!leavesConnectionClean(err)) broken = err as Error;
    throw signal?.aborted ? new ReadCancelledError() : err;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    broken ??= read.broken;
    // A cancel may land after the statement ended: the connection it was sent for is never
    // handed to another read, whose statement it could cancel instead.
    if (cancelled) {
      await cancelled;
      broken ??= new ReadCancelledError();
    }
    client.release(broken);
    client.removeListener('error', onError);
  }
}

/**
 * Whether the connection may serve another read after this failure: a statement's own error
 * (severity ERROR: the server skipped to the Sync, which ended the implicit transaction and its
 * settings), a result past the byte cap that was read to its end, or a read given up before it
 * was sent. Anything else (FATAL: the backend is going away; a socket error; a client timeout)
 * gives the connection up.
 */
function leavesConnectionClean(err: unknown): boolean {
  // a read cancelled before it was sent never touched the connection (one cancelled while it
  // ran gives the connection up through its cancel request)
  if (err instanceof ResultTooLargeError || err instanceof ReadCancelledError) return true;
  return err instanceof pg.DatabaseError && err.severity === 'ERROR';
}

/**
 * A connection of the pool, unless `signal` aborts first (a read waiting behind a full pool
 * is given up at once; the connection it would have had goes straight back).
 */
function connectUnlessAborted(pool: pg.Pool, signal?: AbortSignal): Promise<pg.PoolClient> {
  if (!signal) return pool.connect();
  if (signal.aborted) return Promise.reject(new ReadCancelledError());
  return new Promise<pg.PoolClient>((resolve, reject) => {
    const onAbort = (): void => reject(new ReadCancelledError());
    signal.addEventListener('abort', onAbort, { once: true });
    pool.connect().then(
      (client) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) client.release();
        else resolve(client);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        // as it came: a socket error's `code` (ECONNREFUSED) is how callers tell what failed,
        // and `instanceof Error` is false for errors of another realm (a test runner's vm)
        reject(typeof err === 'object' && err !== null ? (err as Error) : new Error(String(err)));
      },
    );
  });
}
