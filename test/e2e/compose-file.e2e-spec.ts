import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { HAPROXY_CONFIG, haproxyPath } from '../../scripts/cluster/cluster';

/**
 * Docker cannot run where this project is developed, so docker-compose.yml and the
 * Dockerfile are checked as files: the compose file parses, its HAProxy uses the very config
 * file `npm run cluster` uses with one GW_REPLICA_<n> per gateway service, and HAProxy
 * accepts that config with the compose environment.
 */
const root = path.resolve(__dirname, '../..');
const run = promisify(execFile);

interface Service {
  build?: string;
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  depends_on?: unknown;
  profiles?: string[];
}

describe('docker-compose.yml and Dockerfile (checked without Docker)', () => {
  const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')) as {
    services: Record<string, Service>;
  };
  const gateways = Object.entries(compose.services).filter(([name]) => name.startsWith('gateway-'));
  const lb = compose.services.haproxy;

  it('puts HAProxy, with the shared config file, in front of every gateway replica', () => {
    expect(gateways.length).toBeGreaterThanOrEqual(2);
    const mount = lb.volumes?.find((v) => v.endsWith(':/usr/local/etc/haproxy/haproxy.cfg:ro'));
    expect(mount && path.resolve(root, mount.split(':')[0])).toBe(HAPROXY_CONFIG);
    const replicas = Object.entries(lb.environment ?? {})
      .filter(([k]) => k.startsWith('GW_REPLICA_'))
      .map(([, v]) => v)
      .sort();
    expect(replicas).toEqual(gateways.map(([name]) => `${name}:3000`).sort());
    expect(lb.ports).toContain('3000:3000');
  });

  it('runs every replica from the image built here, on the same Postgres and Redis', () => {
    const envs = gateways.map(([, s]) => s.environment);
    for (const [, s] of gateways) expect(s.build).toBe('.');
    expect(new Set(envs.map((e) => e?.DATABASE_URL)).size).toBe(1);
    expect(envs[0]?.REDIS_URL).toBe('redis://redis:6379');
    expect(envs[0]?.HOST).toBe('0.0.0.0');
    expect(compose.services.migrate.command).toEqual([
      'node',
      'dist/apps/gateway/src/cli/db.js',
      'seed',
    ]);
  });

  it('builds in stages and runs as a non-root user', () => {
    const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/^FROM [^\n]+ AS build$/m);
    const user = dockerfile.match(/^USER (\S+)$/m)?.[1];
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)$/);
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/apps\/gateway\/src\/main\.js"\]$/m);
    // only the last stage's files ship: the build stage's dev dependencies stay behind
    expect(dockerfile.split(/^FROM /m).pop()).toMatch(/COPY --from=build \/app\/dist/);
  });

  const haproxy = haproxyPath();
  (haproxy ? it : it.skip)('is a config HAProxy accepts with the compose environment', async () => {
    const { stdout, stderr } = await run(haproxy!, ['-c', '-f', HAPROXY_CONFIG], {
      env: { ...process.env, ...lb.environment },
    });
    expect(`${stdout}${stderr}`).toContain('Configuration file is valid');
  });
});
