import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { PrivateRedis } from '../../test/support/redis-server';
import { TcpProxy } from '../../test/support/tcp-proxy';
import { databaseUrl, ensureTemplate } from '../../test/support/template-database';
import { ROOT } from '../cluster/cluster';
import type { Cluster } from '../cluster/cluster';

export const PG_SERVER =
  process.env.SOAK_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * What the soak owns: a database cloned from the test template, a private redis-server on a
 * free port, a TCP proxy in front of Postgres, a tools folder and a log. `cleanup` ends all
 * of it (and what was added with `onCleanup`, first).
 */
export class SoakResources {
  readonly runId = randomBytes(4).toString('hex');
  readonly dbName = `gw_soak_${this.runId}`;
  readonly secret = randomBytes(32).toString('base64url');
  readonly toolsDir = path.join(ROOT, '.data', `soak-tools-${this.runId}`);
  readonly logFile: string;
  readonly log: WriteStream;
  readonly admin = new pg.Client({ connectionString: PG_SERVER });
  readonly pgProxy: TcpProxy;
  proxyPort = 0;
  redis!: PrivateRedis;
  cluster: Cluster | undefined;
  private readonly first: Array<() => Promise<void>> = [];

  private constructor() {
    const pgPort = Number(new URL(PG_SERVER).port || 5432);
    this.pgProxy = new TcpProxy(new URL(PG_SERVER).hostname, pgPort);
    const logDir = path.join(ROOT, '.data', 'soak');
    mkdirSync(logDir, { recursive: true });
    this.logFile = path.join(logDir, `soak-${this.runId}.log`);
    this.log = createWriteStream(this.logFile);
  }

  static async create(): Promise<SoakResources> {
    const own = new SoakResources();
    await own.admin.connect();
    const template = await ensureTemplate(PG_SERVER);
    await own.admin.query(`CREATE DATABASE "${own.dbName}" TEMPLATE "${template}"`);
    own.proxyPort = await own.pgProxy.start();
    own.redis = new PrivateRedis(await PrivateRedis.freePort());
    await own.redis.start();
    return own;
  }

  /** The gateway's settings: Postgres through the proxy, the private Redis. */
  gatewayEnv(): Record<string, string> {
    return {
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl(`postgres://postgres@127.0.0.1:${this.proxyPort}`, this.dbName),
      REDIS_URL: this.redis.url,
      AUTH_JWT_SECRET: this.secret,
      GENERATED_TOOLS_DIR: this.toolsDir,
      DB_POOL_SIZE: '6',
    };
  }

  /** A direct connection to the soak's database (not through the proxy). */
  truthUrl(): string {
    return databaseUrl(PG_SERVER, this.dbName);
  }

  onCleanup(fn: () => Promise<void>): void {
    this.first.push(fn);
  }

  async cleanup(): Promise<void> {
    for (const fn of this.first) await fn().catch(() => undefined);
    await this.cluster?.stop().catch(() => undefined);
    await this.redis.stop().catch(() => undefined);
    await this.pgProxy.stop().catch(() => undefined);
    await this.admin
      .query(`DROP DATABASE IF EXISTS "${this.dbName}" WITH (FORCE)`)
      .catch(() => undefined);
    await this.admin.end().catch(() => undefined);
    rmSync(this.toolsDir, { recursive: true, force: true });
    this.log.end();
  }
}
