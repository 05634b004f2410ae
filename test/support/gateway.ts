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
): Promise<RunningGateway> {
  const db = database ?? (await createTestDatabase());
  Object.assign(process.env, {
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    AUTH_JWT_SECRET: TEST_JWT_SECRET,
    REDIS_URL: '',
    ...env,
  });
  const app = await createGateway({ logger: false });
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
    async close() {
      await app.close();
      if (!database) await db.drop();
    },
  };
}
