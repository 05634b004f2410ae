import { ReadCancelledError, ResultTooLargeError } from '@app/db';
import type { ReadPool } from '@app/db';
import { createMariaDatabase } from '../../../../../test/support/mariadb';
import type { MariaDatabase, MariaLogin } from '../../../../../test/support/mariadb';
import { AllowedNetworks } from '../boundary/allowed-networks';
import { parseSourceUrl } from '../boundary/source-address';
import { SourceConnector, SourceRefusedError } from '../boundary/source-connect';
import { openMysqlReadPool } from './mysql-read-pool';

/**
 * The MySQL read pool on this machine's MariaDB (issue #42), below the guard: what holds even for
 * SQL the guard would never pass and a login registration would refuse.
 */
describe('openMysqlReadPool (MariaDB)', () => {
  let db: MariaDatabase;
  let writer: MariaLogin;
  let pool: ReadPool;
  const connector = (networks: string) =>
    new SourceConnector({
      networks: AllowedNetworks.parse(networks),
      connectTimeoutMs: 1000,
      ownServer: () => Promise.resolve(null),
    });
  const endpoint = (url: string) => {
    const parsed = parseSourceUrl(url);
    if (!parsed.ok) throw new Error(parsed.problem.message);
    return parsed.endpoint;
  };
  const options = { max: 2, connectTimeoutMs: 1000, idleTimeoutMs: 5000, applicationName: 't' };
  const read = (text: string, values: unknown[] = [], extra: object = {}) =>
    pool.guardedRead({ setup: [], text, values, maxBytes: 1_000_000, timeoutMs: 5000, ...extra });

  beforeAll(async () => {
    db = await createMariaDatabase(`
      CREATE TABLE t (id INT PRIMARY KEY, word VARCHAR(200));
      INSERT INTO t SELECT seq, REPEAT('x', 200) FROM seq_1_to_500;`);
    // a login that may write: the read-only transaction, not the grant, must stop it here
    writer = await db.login((u) => [`GRANT SELECT, INSERT, DELETE ON \`${db.name}\`.* TO ${u}`]);
    pool = openMysqlReadPool(endpoint(writer.url), connector('127.0.0.0/8'), undefined, options);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('runs every read in a READ ONLY transaction: a write fails, nothing is written', async () => {
    await expect(read('INSERT INTO t VALUES (?, ?)', [9999, 'w'])).rejects.toThrow(
      /READ ONLY transaction/,
    );
    await expect(read('DELETE FROM t')).rejects.toThrow(/READ ONLY transaction/);
    const { rows } = await read('SELECT COUNT(*) AS n FROM t');
    expect(rows).toEqual([[500]]);
  });

  it('binds values as placeholders: a value is never read as SQL', async () => {
    const { rows } = await read('SELECT id FROM t WHERE word = ? OR id = ?', ["x' OR '1'='1", 3]);
    expect(rows).toEqual([[3]]);
  });

  it('stops a result past the byte cap while it arrives, and the pool goes on', async () => {
    await expect(read('SELECT id, word FROM t', [], { maxBytes: 10_000 })).rejects.toBeInstanceOf(
      ResultTooLargeError,
    );
    expect((await read('SELECT id FROM t WHERE id = ?', [7])).rows).toEqual([[7]]);
  });

  it('never starts a read whose caller already gave up', async () => {
    const aborted = AbortSignal.abort();
    await expect(read('SELECT 1', [], { signal: aborted })).rejects.toBeInstanceOf(
      ReadCancelledError,
    );
  });

  it('refuses to connect to an address outside the allowed networks, at the first read', async () => {
    const refused = openMysqlReadPool(
      endpoint(writer.url),
      connector('public'),
      undefined,
      options,
    );
    try {
      await expect(
        refused.guardedRead({
          setup: [],
          text: 'SELECT 1',
          values: [],
          maxBytes: 100,
          timeoutMs: 1000,
        }),
      ).rejects.toBeInstanceOf(SourceRefusedError);
      expect(refused.stats().total).toBe(0);
    } finally {
      await refused.end();
    }
  });
});
