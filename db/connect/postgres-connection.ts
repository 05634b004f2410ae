import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { answersWithin } from './connection';
import type { DatabaseHandle, SqlSession, Unlisten } from './connection';
import type { DB } from '../database';
import type { GuardedReadRequest, GuardedReadResult } from './guarded-read';
import { guardedReader, pgTypes } from './pool-reads';
import { STATEMENTS_PER_CONNECTION } from './prepared-statements';

/*
 * The DatabaseHandle over Postgres (node-postgres): a pool for the gateway's queries, a
 * connection of its own for the health probe, a dedicated client per LISTEN.
 */

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
