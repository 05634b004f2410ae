import { ReadCancelledError, ResultTooLargeError } from '@app/db';
import type { GuardedReadRequest, GuardedReadResult, ReadPool, SqlSession } from '@app/db';
import mysql from 'mysql2';
import type { Pool, PoolConnection } from 'mysql2';
import type { ReadPoolOptions } from '@app/db';
import type { SourceEndpoint } from '../boundary/source-address';
import type { SourceConnector } from '../boundary/source-connect';
import { gatewayError, mysqlOptions } from './mysql-connection';
import { connection, run, streamRows } from './mysql-read';
import { MYSQL_SQL } from './mysql-session.repository';
import { mysqlFields } from './mysql-values';
import type { MysqlField } from './mysql-values';

/** mysql2's pool keeps its connections in these (no public counters) */
interface PoolInternals {
  _allConnections?: { length: number };
  _freeConnections?: { length: number };
  _connectionQueue?: { length: number };
}

/**
 * A bounded pool on one server of a tenant's MySQL-protocol source (issue #42), with the same
 * surface as a Postgres source's: guarded reads, a session for probes, counts, end. The server's
 * name is resolved and checked by the connector when the pool first opens (and again after a
 * failed open); every connection goes to that checked address, so no lookup happens between the
 * check and the connect.
 */
export function openMysqlReadPool(
  endpoint: SourceEndpoint,
  connector: SourceConnector,
  caPem: string | undefined,
  options: ReadPoolOptions,
): ReadPool {
  let opening: Promise<{ pool: Pool; address: string }> | undefined;
  let opened: Pool | undefined;
  let ended = false;
  /** the variable this server bounds a statement with; learnt at the first read */
  let timeoutVariable: 'mariadb' | 'mysql' | undefined;
  const open = () => {
    opening ??= connector.address(endpoint).then(
      (address) => {
        const pool = mysql.createPool({
          ...mysqlOptions(endpoint, address, caPem, options.connectTimeoutMs),
          connectionLimit: options.max,
          maxIdle: options.max,
          idleTimeout: options.idleTimeoutMs,
          waitForConnections: true,
          queueLimit: 0,
        });
        pool.on('connection', (c) => c.on('error', () => undefined));
        opened = pool;
        return { pool, address };
      },
      (err: unknown) => {
        opening = undefined; // a failed lookup or refusal is asked again next time
        throw err;
      },
    );
    return opening;
  };

  const acquire = async (signal?: AbortSignal): Promise<PoolConnection> => {
    if (ended) throw new Error('the pool has ended');
    const { pool } = await open();
    return connection(pool, options.connectTimeoutMs, signal);
  };

  /** Asks the server to stop `threadId`'s statement, on a connection of its own. */
  const kill = async (threadId: number | null): Promise<void> => {
    if (threadId === null) return;
    const { address } = await open();
    const killer = mysql.createConnection(
      mysqlOptions(endpoint, address, caPem, options.connectTimeoutMs),
    );
    killer.on('error', () => undefined);
    await killer
      .promise()
      .query(MYSQL_SQL.killQuery(threadId))
      .catch(() => undefined);
    killer.destroy();
  };

  const boundStatement = async (c: PoolConnection, ms: number): Promise<void> => {
    if (timeoutVariable !== 'mysql') {
      try {
        await run(c, MYSQL_SQL.mariadbTimeout(ms));
        timeoutVariable = 'mariadb';
        return;
      } catch (err) {
        // 1193: unknown system variable: not MariaDB
        if ((err as { errno?: number }).errno !== 1193 || timeoutVariable === 'mariadb') throw err;
        timeoutVariable = 'mysql';
      }
    }
    await run(c, MYSQL_SQL.mysqlTimeout(ms));
  };

  return {
    async guardedRead(request: GuardedReadRequest): Promise<GuardedReadResult> {
      const c = await acquire(request.signal).catch((err: unknown) => {
        throw err instanceof ReadCancelledError ? err : gatewayError(err);
      });
      let clean = false;
      try {
        await boundStatement(
          c,
          request.statementTimeoutMs ?? Math.max(1, request.timeoutMs - 1000),
        );
        await run(c, MYSQL_SQL.startReadOnly);
        const result = await streamRows(c, request, kill);
        await run(c, MYSQL_SQL.rollback);
        clean = true;
        return result;
      } catch (err) {
        // a statement's own error leaves the connection usable once its transaction is undone
        if (!(err instanceof ReadCancelledError) && isStatementError(err))
          clean = await run(c, MYSQL_SQL.rollback).then(
            () => true,
            () => false,
          );
        throw err instanceof ReadCancelledError || err instanceof ResultTooLargeError
          ? err
          : gatewayError(err);
      } finally {
        if (clean) c.release();
        else c.destroy();
      }
    },
    async withSession<T>(fn: (session: SqlSession) => Promise<T>): Promise<T> {
      const c = await acquire().catch((err: unknown) => {
        throw gatewayError(err);
      });
      try {
        return await fn({
          script: async (text) => {
            await run(c, text);
          },
          query: async (text, values = []) => {
            const [rows, fields] = await c.promise().query({ sql: text, values: [...values] });
            return {
              fields: mysqlFields((fields ?? []) as unknown as MysqlField[]),
              rows: rows as Record<string, unknown>[],
            };
          },
        });
      } catch (err) {
        throw gatewayError(err);
      } finally {
        c.release();
      }
    },
    stats() {
      const p = opened as unknown as PoolInternals | undefined;
      const total = p?._allConnections?.length ?? 0;
      return {
        total,
        idle: Math.min(total, p?._freeConnections?.length ?? 0),
        waiting: p?._connectionQueue?.length ?? 0,
        max: options.max,
      };
    },
    async end() {
      ended = true;
      const pool = await opening?.then(
        (o) => o.pool,
        () => undefined,
      );
      await pool
        ?.promise()
        .end()
        .catch(() => undefined);
    },
  };
}

/** An error the server gave for the statement (it has an errno): the connection is still sound. */
function isStatementError(err: unknown): boolean {
  const e = err as { errno?: unknown; fatal?: unknown };
  return typeof e.errno === 'number' && e.fatal !== true;
}
