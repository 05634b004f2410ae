import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { answersWithin } from './connection';
import type { DatabaseHandle, SqlSession, Unlisten } from './connection';
import type { DB } from '../database';
import { sendCancelRequest } from './cancel-request';
import {
  GuardedRead,
  prepareQueryValue,
  ReadCancelledError,
  ResultTooLargeError,
  StatementOutOfSyncError,
} from './guarded-read';
import type { GuardedReadRequest, GuardedReadResult } from './guarded-read';
import { PreparedStatements, STATEMENTS_PER_CONNECTION } from './prepared-statements';
import { VALUE_PARSERS } from './type-parsers';

/*
 * The DatabaseHandle over Postgres (node-postgres): a pool for the gateway's queries, a
 * connection of its own for the health probe, a dedicated client per LISTEN.
 */

const pgTypes = {
  getTypeParser: (oid: number, format?: string) =>
    VALUE_PARSERS[oid] ?? pg.types.getTypeParser(oid, format as 'text'),
};

/** The gateway's database on the Postgres server at `url`. */
export function connectPostgres(
  url: string,
  poolSize = 10,
  /** named statements per connection before the least recently used is closed (ADR 0005) */
  statementLimit = STATEMENTS_PER_CONNECTION,
): DatabaseHandle {
  const { pool, health } = openPools(url, poolSize);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    kind: 'postgres',
    db,
    withSession(fn) {
      return pgSession(pool, fn);
    },
    guardedRead: guardedReader(pool, statementLimit),
    ping: (timeoutMs) =>
      answersWithin(
        health.query('SELECT 1').then(() => undefined),
        timeoutMs,
      ),
    poolStats: () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max: poolSize,
    }),
    listen(channel, onNotify, onError, applicationName = 'gateway-listener') {
      return pgListen(url, channel, onNotify, onError, applicationName);
    },
    async close() {
      await db.destroy();
      await health.end().catch(() => undefined);
    },
  };
}

/** The pool of the gateway's queries, and the health probe's own one-connection pool. */
function openPools(url: string, poolSize: number): { pool: pg.Pool; health: pg.Pool } {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, types: pgTypes });
  // Health checks get a connection of their own: a pool busy with report queries is working,
  // and readiness must not wait behind them (a load balancer would take a busy replica out).
  const health = new pg.Pool({ connectionString: url, max: 1, application_name: 'gateway-health' });
  health.on('error', () => undefined);
  health.on('connect', (client) => client.on('error', () => undefined));
  // An idle client that dies (server restart) must not crash the process.
  pool.on('error', () => undefined);
  // ...nor one that dies while checked out between two queries (pg-pool listens only while
  // a client is idle; Kysely's transactions hold one): the next query on it fails instead.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return { pool, health };
}

/** DatabaseHandle.guardedRead over the pool, with each connection's named statements. */
function guardedReader(
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

/** DatabaseHandle.withSession on Postgres: one connection of the pool for the callback. */
async function pgSession<T>(pool: pg.Pool, fn: (session: SqlSession) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // The server may drop the connection between two queries of the session (network
  // blip, pg_terminate_backend): without a listener that 'error' would crash the process.
  const lost = (err: Error): void => {
    broken ??= err;
  };
  client.on('error', lost);
  try {
    return await fn({
      async script(text) {
        if (broken) throw broken;
        await client.query(text);
      },
      async query(text, values = [], options = {}) {
        // a connection given up on (e.g. a hung query) takes nothing more; it is destroyed
        if (broken) throw broken;
        try {
          // Extended protocol always: one statement per round trip, never a script.
          const result = await client.query({
            text,
            values: [...values],
            queryMode: 'extended',
            ...(options.timeoutMs ? { query_timeout: options.timeoutMs } : {}),
          } as pg.QueryConfig);
          return { fields: result.fields, rows: result.rows };
        } catch (err) {
          if (err instanceof Error && /timeout|terminat|Connection/i.test(err.message))
            broken = err;
          throw err;
        }
      },
    });
  } finally {
    client.removeListener('error', lost);
    client.release(broken);
  }
}

/** DatabaseHandle.listen on Postgres: a dedicated client, named `applicationName`. */
async function pgListen(
  url: string,
  channel: string,
  onNotify: (payload: string) => void,
  onError: (err: Error) => void,
  applicationName: string,
): Promise<Unlisten> {
  const client = new pg.Client({ connectionString: url, application_name: applicationName });
  client.on('notification', (msg) => {
    if (msg.channel === channel) onNotify(msg.payload ?? '');
  });
  client.on('error', onError);
  client.on('end', () => onError(new Error('LISTEN connection ended')));
  await client.connect();
  await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
  return async () => {
    client.removeAllListeners('end');
    client.removeAllListeners('error');
    client.on('error', () => undefined);
    await client.end().catch(() => undefined);
  };
}

/** A bounded pool on a tenant's own Postgres server (issue #30): guarded reads only. */
export interface ReadPool {
  guardedRead(request: GuardedReadRequest): Promise<GuardedReadResult>;
  /** one connection for the callback (probes and checks the gateway writes itself) */
  withSession<T>(fn: (session: SqlSession) => Promise<T>): Promise<T>;
  stats(): { total: number; idle: number; waiting: number; max: number };
  end(): Promise<void>;
}

export interface ReadPoolOptions {
  max: number;
  /** a connection not made within this long fails (and so does a wait for a free one) */
  connectTimeoutMs: number;
  /** an idle connection is closed after this long */
  idleTimeoutMs: number;
  applicationName: string;
}

/**
 * A ReadPool on the server `connection` names (host, port, login, TLS, and the Client class that
 * connects: a tenant source's checks its address first). Never a URL: a URL's free parameters
 * reach the driver (issue #37). The login is never logged here.
 */
export function openReadPool(connection: pg.PoolConfig, options: ReadPoolOptions): ReadPool {
  const pool = new pg.Pool({
    ...connection,
    max: options.max,
    connectionTimeoutMillis: options.connectTimeoutMs,
    idleTimeoutMillis: options.idleTimeoutMs,
    application_name: options.applicationName,
    types: pgTypes,
  });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return {
    guardedRead: guardedReader(pool, STATEMENTS_PER_CONNECTION),
    withSession: (fn) => pgSession(pool, fn),
    stats: () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max: options.max,
    }),
    end: () => pool.end().catch(() => undefined),
  };
}
