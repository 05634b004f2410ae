import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { buildIfNeeded, HAPROXY_MISSING, haproxyPath, ROOT, startCluster } from './cluster';

/**
 * `npm run cluster -- --replicas N --port P`: N gateway replicas on the configured Postgres
 * and Redis (default: the local servers, database gateway_cluster, created and seeded on
 * first use) behind HAProxy on 127.0.0.1:P. Ctrl-C stops everything it started.
 */
const DEFAULT_DATABASE = 'postgres://postgres@127.0.0.1:5432/gateway_cluster';
const DEFAULT_REDIS = 'redis://127.0.0.1:6379';

async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return;
    process.stderr.write(`[cluster] creating database ${name} with the demo catalog\n`);
    await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
  execFileSync('npx', ['tsx', path.join(ROOT, 'apps/gateway/src/cli/db.ts'), 'seed'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url },
    stdio: 'inherit',
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      replicas: { type: 'string', default: '2' },
      port: { type: 'string', default: '3000' },
    },
  });
  const replicas = Number(values.replicas);
  const port = Number(values.port);
  if (!Number.isInteger(replicas) || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error('usage: npm run cluster -- [--replicas N] [--port P]');
  }
  if (!haproxyPath()) throw new Error(HAPROXY_MISSING);
  const databaseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE;
  const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS;
  if (!process.env.DATABASE_URL) await ensureDatabase(databaseUrl);
  buildIfNeeded();
  const cluster = await startCluster({
    replicas,
    port,
    supervise: true,
    env: {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: process.env.REDIS_KEY_PREFIX || 'gw-cluster',
    },
  });
  process.stderr.write(
    `[cluster] ${replicas} replica(s) behind HAProxy on ${cluster.url} (stats: ${cluster.statsUrl}); Ctrl-C stops everything\n` +
      `[cluster] database ${databaseUrl.replace(/\/\/[^@]*@/, '//')}, Redis ${redisUrl || 'off (sessions stay on their replica)'}\n` +
      `[cluster] a token: npm run --silent token -- --tenant acme --user alice --roles analyst\n`,
  );
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`[cluster] ${signal}: stopping the replicas and HAProxy\n`);
    cluster.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`cluster: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
