import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DB } from './database';
import {
  GuardedRead,
  prepareQueryValue,
  ResultTooLargeError,
  StatementOutOfSyncError,
} from './guarded-read';
import type { GuardedReadRequest, GuardedReadResult } from './guarded-read';
import { Mutex } from './mutex';
import { PGliteDialect } from './pglite-dialect';
import { PreparedStatements, STATEMENTS_PER_CONNECTION } from './prepared-statements';
import { selectOne } from './server.repository';
import { VALUE_PARSERS } from './type-parsers';

export interface SqlField {
  name: string;
  dataTypeID: number;
}

export interface SqlResult {
  fields: SqlField[];
  rows: Record<string, unknown>[];
}

/** One connection, held for the duration of a callback (a transaction needs one). */
export interface SqlSession {
  /**
   * Several fixed statements in one round trip (simple protocol, no parameters). Only for
   * text the gateway writes itself from validated identifiers, never for report SQL.
   */
  script(text: string): Promise<void>;
  query(
    text: string,
    values?: readonly unknown[],
    options?: { timeoutMs?: number },
  ): Promise<SqlResult>;
}

export type Unlisten = () => Promise<void>;

/** The metadata query builder plus raw sessions for tenant data, on pg or PGlite alike. */
export interface DatabaseHandle {
  readonly kind: 'postgres' | 'pglite';
  readonly db: Kysely<DB>;
  withSession<T>(fn: (session: SqlSession) => Promise<T>): Promise<T>;
  /**
   * Untrusted SQL under the settings that contain it, in one round trip where the driver
   * allows, reading no more than `maxBytes` of rows (else ResultTooLargeError).
   */
  guardedRead(request: GuardedReadRequest): Promise<GuardedReadResult>;
  /** true when the database answers `SELECT 1` within the time given */
  ping(timeoutMs: number): Promise<boolean>;
  /**
   * LISTEN on a dedicated connection (named `application_name`, 'gateway-listener' unless
   * given, so operators and `pg_stat_activity` tell the feeds apart); `onError` fires when
   * that connection is lost.
   */
  listen(
    channel: string,
    onNotify: (payload: string) => void,
    onError: (err: Error) => void,
    applicationName?: string,
  ): Promise<Unlisten>;
  close(): Promise<void>;
  /** connection pool use, for metrics (Postgres only) */
  poolStats?(): { total: number; idle: number; waiting: number; max: number };
}

function ping(db: Kysely<DB>, timeoutMs: number): Promise<boolean> {
  return answersWithin(selectOne(db), timeoutMs);
}

/** true when `work` succeeds within `timeoutMs` */
function answersWithin(work: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  return Promise.race([
    work.then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref()),
  ]);
}

const pgTypes = {
  getTypeParser: (oid: number, format?: string) =>
    VALUE_PARSERS[oid] ?? pg.types.getTypeParser(oid, format as 'text'),
};

export function connectPostgres(
  url: string,
  poolSize = 10,
  /** named statements per connection before the least recently used is closed (ADR 0005) */
  statementLimit = STATEMENTS_PER_CONNECTION,
): DatabaseHandle {
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
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  // Named statements each connection holds, as the server confirmed them; they go with it.
  const prepared = new WeakMap<pg.PoolClient, PreparedStatements>();
  const statementsOf = (client: pg.PoolClient): PreparedStatements => {
    let statements = prepared.get(client);
    if (!statements) prepared.set(client, (statements = new PreparedStatements(statementLimit)));
    return statements;
  };
  const readOnce = async (request: GuardedReadRequest): Promise<GuardedReadResult> => {
    const client = await pool.connect();
    // a dropped connection makes the client emit 'error'; the read reports it instead
    const onError = (): void => undefined;
    client.on('error', onError);
    const statements = request.statement ? statementsOf(client) : undefined;
    const read = new GuardedRead(request, pgTypes.getTypeParser, statements);
    let broken: Error | undefined;
    try {
      void client.query(read);
      return await read.done;
    } catch (err) {
      // bookkeeping that disagrees with the server is not repaired in place: drop it all
      if (err instanceof StatementOutOfSyncError) broken = err;
      throw err;
    } finally {
      broken ??= read.broken;
      if (!broken && read.needsRollback) {
        await client.query('ROLLBACK').catch((err: Error) => {
          broken = err;
        });
      }
      client.release(broken);
      client.removeListener('error', onError);
    }
  };
  return {
    kind: 'postgres',
    db,
    async withSession(fn) {
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
    },
    async guardedRead(request) {
      // values are mapped before anything is written, so a bad one cannot leave half a pipeline
      const values = request.values.map((v) => prepareQueryValue(v));
      try {
        return await readOnce({ ...request, values });
      } catch (err) {
        // The query did not run (its Parse or Bind failed) and that connection is gone: once
        // more without the named statement, which cannot be out of sync on any connection.
        if (!(err instanceof StatementOutOfSyncError)) throw err;
        return readOnce({ ...request, values, statement: undefined });
      }
    },
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
    async listen(channel, onNotify, onError, applicationName = 'gateway-listener') {
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
    },
    async close() {
      await db.destroy();
      await health.end().catch(() => undefined);
    },
  };
}

export async function openPGlite(dataDir: string | undefined): Promise<DatabaseHandle> {
  const pglite = await PGlite.create(dataDir, { parsers: VALUE_PARSERS });
  const mutex = new Mutex();
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite, mutex) });
  return {
    kind: 'pglite',
    db,
    withSession(fn) {
      return mutex.run(() =>
        fn({
          async script(text) {
            await pglite.exec(text);
          },
          async query(text, values = []) {
            const result = await pglite.query<Record<string, unknown>>(text, [...values]);
            return { fields: result.fields, rows: result.rows };
          },
        }),
      );
    },
    guardedRead(request) {
      // In-process: no round trips to save and no socket to watch; the cap is checked after.
      return mutex.run(async () => {
        try {
          await pglite.exec(request.setup.join('; '));
          const result = await pglite.query<unknown[]>(request.text, [...request.values], {
            rowMode: 'array',
          });
          const bytes = Buffer.byteLength(JSON.stringify(result.rows));
          if (bytes > request.maxBytes) throw new ResultTooLargeError(bytes, request.maxBytes);
          return { fields: result.fields, rows: result.rows, bytes };
        } finally {
          await pglite.exec('ROLLBACK').catch(() => undefined);
        }
      });
    },
    ping: (timeoutMs) => ping(db, timeoutMs),
    async listen(channel, onNotify) {
      return pglite.listen(channel, onNotify);
    },
    async close() {
      await db.destroy();
      await pglite.close();
    },
  };
}
