import { execSync } from 'node:child_process';
import net from 'node:net';

/**
 * Where the tests find Postgres and Redis: TEST_DATABASE_URL / TEST_REDIS_URL, else the
 * local servers on their default ports, else testcontainers when Docker runs, else a
 * failure saying how to provide them.
 */
export interface TestServers {
  postgresUrl: string;
  redisUrl: string;
  stop(): Promise<void>;
}

const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres';
// a database number of the suite's own, so a run never touches db 0 of a Redis that also
// serves other work (every key the suite writes also carries a prefix of its own)
const LOCAL_REDIS = 'redis://127.0.0.1:6379/13';

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function dockerRuns(): boolean {
  try {
    execSync('docker info', { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

export async function findTestServers(): Promise<TestServers> {
  let postgresUrl = process.env.TEST_DATABASE_URL;
  let redisUrl = process.env.TEST_REDIS_URL;
  if (!postgresUrl && (await reachable(LOCAL_POSTGRES))) postgresUrl = LOCAL_POSTGRES;
  if (!redisUrl && (await reachable(LOCAL_REDIS))) redisUrl = LOCAL_REDIS;
  if (postgresUrl && redisUrl) return { postgresUrl, redisUrl, stop: async () => undefined };
  if (!dockerRuns()) {
    throw new Error(
      'The tests need Postgres and Redis: set TEST_DATABASE_URL and TEST_REDIS_URL, or run them on 127.0.0.1:5432 (user postgres, trust auth) and 127.0.0.1:6379, or start Docker so testcontainers can.',
    );
  }
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const { RedisContainer } = await import('@testcontainers/redis');
  const pg = postgresUrl ? undefined : await new PostgreSqlContainer('postgres:15-alpine').start();
  const redis = redisUrl ? undefined : await new RedisContainer('redis:7-alpine').start();
  return {
    postgresUrl: postgresUrl ?? pg!.getConnectionUri(),
    redisUrl: redisUrl ?? redis!.getConnectionUrl(),
    async stop() {
      await pg?.stop();
      await redis?.stop();
    },
  };
}
