import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import type { DB } from '../database';
import { ReadCancelledError, ResultTooLargeError } from './guarded-read';
import type { GuardedReadRequest, GuardedReadResult, SqlField } from './guarded-read';
import { Mutex } from './mutex';
import { PGliteDialect } from './pglite-dialect';
import { selectOne } from '../repositories/server.repository';
import { VALUE_PARSERS } from './type-parsers';

export type { SqlField } from './guarded-read';

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
export function answersWithin(work: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  return Promise.race([
    work.then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref()),
  ]);
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
      return mutex.run(() => {
        if (request.signal?.aborted) throw new ReadCancelledError();
        return pgliteGuardedRead(pglite, request);
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

/** DatabaseHandle.guardedRead on PGlite (the caller holds its mutex). */
async function pgliteGuardedRead(
  pglite: PGlite,
  request: GuardedReadRequest,
): Promise<GuardedReadResult> {
  try {
    // an explicit transaction here: exec and query are separate calls (Postgres uses the
    // implicit one of a single Sync, db/connect/guarded-read.ts)
    await pglite.exec(['BEGIN', ...request.setup].join('; '));
    const result = await pglite.query<unknown[]>(request.text, [...request.values], {
      rowMode: 'array',
    });
    const bytes = Buffer.byteLength(JSON.stringify(result.rows));
    if (bytes > request.maxBytes) throw new ResultTooLargeError(bytes, request.maxBytes);
    return { fields: result.fields, rows: result.rows, bytes };
  } finally {
    await pglite.exec('ROLLBACK').catch(() => undefined);
  }
}
