import { rm } from 'node:fs/promises';
import type { DB } from '@app/db';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { eventually } from './eventually';
import path from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SignJWT } from 'jose';
import { createGateway } from '../../apps/gateway/src/bootstrap';
import { createTestDatabase } from './test-database';
import type { TestDatabase } from './test-database';

export const TEST_JWT_SECRET = 'test-secret-for-the-gateway-suite-0123456789';

export interface TokenClaims {
  tenant: string;
  user: string;
  roles?: string[];
  claims?: Record<string, string>;
  expiresIn?: string;
  secret?: string;
}

export function mintToken(t: TokenClaims): Promise<string> {
  return new SignJWT({ ...(t.claims ?? {}), tenant: t.tenant, roles: t.roles ?? [] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(t.user)
    .setIssuedAt()
    .setExpirationTime(t.expiresIn ?? '5m')
    .sign(new TextEncoder().encode(t.secret ?? TEST_JWT_SECRET));
}

export interface RunningGateway {
  baseUrl: string;
  app: NestFastifyApplication;
  database: TestDatabase;
  /** where this instance keeps generated tools */
  toolsDir: string;
  /** fetch with a bearer token for the given identity */
  request(
    path: string,
    init?: RequestInit & { as?: TokenClaims; json?: unknown },
  ): Promise<Response>;
  close(): Promise<void>;
}

/** The real app, on its own cloned database, listening on a free loopback port. */
export async function startGateway(
  env: Record<string, string> = {},
  database?: TestDatabase,
  options: { logDestination?: { write(line: string): void } } = {},
): Promise<RunningGateway> {
  const db = database ?? (await createTestDatabase());
  // generated tools live inside the project, so their imports resolve to its node_modules
  const toolsDir = path.resolve(
    __dirname,
    '../../.data/test-tools',
    `${path.basename(new URL(db.url).pathname)}-${Date.now()}-${Math.random().toString(16).slice(2, 8)}`,
  );
  Object.assign(process.env, {
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    REDIS_URL: '',
    GENERATED_TOOLS_DIR: toolsDir,
    META_TOOL_AUTO_APPROVE: '',
    ...env,
  });
  const app = await createGateway({ logger: false, logDestination: options.logDestination });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    app,
    database: db,
    async request(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.as) headers.set('authorization', `Bearer ${await mintToken(init.as)}`);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      return fetch(`${baseUrl}${path}`, { ...init, headers, body });
    },
    toolsDir: process.env.GENERATED_TOOLS_DIR ?? toolsDir,
    async close() {
      await app.close();
      await rm(toolsDir, { recursive: true, force: true });
      if (!database) await db.drop();
    },
  };
}

/**
 * Runs a metadata change with plain SQL, then waits (polling with a deadline, no fixed
 * sleep) until the gateway serves the tenant at the catalog version that change produced:
 * the version is part of the `x-toolset-key` response header.
 */
export async function changeCatalog(
  gw: RunningGateway,
  tenant: string,
  change: (db: Kysely<DB>) => Promise<unknown>,
): Promise<void> {
  await change(gw.database.handle.db);
  const { rows } = await sql<{
    v: string;
  }>`SELECT catalog_version::text AS v FROM gateway.tenants WHERE id = ${tenant}`.execute(
    gw.database.handle.db,
  );
  const version = rows[0].v;
  await eventually(async () => {
    const res = await gw.request('/v1/tools', { as: { tenant, user: 'catalog-sync', roles: [] } });
    const key = res.headers.get('x-toolset-key') ?? '';
    if (!key.startsWith(`${tenant}:${version}:`))
      throw new Error(`gateway serves ${key}, waiting for version ${version}`);
  });
}
