import { ConfigError, integer, url, urlValue } from './env';
import type { Env } from './env';

/** Token verification: AUTH_* (docs/configuration.md#authentication). */
export interface AuthSettings {
  jwtSecret: string | undefined;
  jwksUrl: string | undefined;
  issuer: string | undefined;
  audience: string | undefined;
  /** token claims a template may bind as `:claim_<name>` */
  boundClaims: string[];
  /** where tenant, user and roles are read from in a token (a dotted path for nested claims) */
  claimNames: { tenant: string; user: string; roles: string };
  /** named in /.well-known/oauth-protected-resource; default: the issuer when set */
  authorizationServers: string[];
  /** the longest a token may live: `exp` at most this many seconds after `iat` (or now) */
  maxTokenAgeSeconds: number;
}

export type NodeEnv = 'development' | 'production' | 'test';

export function authSettings(env: Env, mode: NodeEnv): AuthSettings {
  const jwtSecret = env.AUTH_JWT_SECRET || undefined;
  const jwksUrl = url(env, 'AUTH_JWKS_URL', ['https:', 'http:']);
  if (jwtSecret !== undefined && jwtSecret.length < 32) {
    throw new ConfigError('AUTH_JWT_SECRET must be at least 32 characters');
  }
  if (mode === 'production' && !jwtSecret && !jwksUrl) {
    throw new ConfigError(
      'NODE_ENV=production refuses the generated dev secret: set AUTH_JWT_SECRET or AUTH_JWKS_URL',
    );
  }
  const claims = (env.AUTH_BOUND_CLAIMS ?? 'region')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  const bad = claims.find((c) => !/^[a-z][a-z0-9_]*$/.test(c));
  if (bad)
    throw new ConfigError(`AUTH_BOUND_CLAIMS entries must match ^[a-z][a-z0-9_]*$; got "${bad}"`);
  const issuer = env.AUTH_ISSUER || undefined;
  const servers = (env.AUTH_AUTHORIZATION_SERVERS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const server of servers) urlValue('AUTH_AUTHORIZATION_SERVERS', server, ['https:', 'http:']);
  return {
    jwtSecret,
    jwksUrl,
    issuer,
    audience: env.AUTH_AUDIENCE || undefined,
    boundClaims: claims,
    claimNames: {
      tenant: claimPath(env, 'AUTH_TENANT_CLAIM', 'tenant'),
      user: claimPath(env, 'AUTH_USER_CLAIM', 'sub'),
      roles: claimPath(env, 'AUTH_ROLES_CLAIM', 'roles'),
    },
    authorizationServers: servers.length > 0 ? servers : issuer ? [issuer] : [],
    maxTokenAgeSeconds: integer(env, 'AUTH_MAX_TOKEN_AGE_SECONDS', 86_400, 60, 30 * 86_400),
  };
}

function claimPath(env: Env, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  if (!/^[A-Za-z_][A-Za-z0-9_:/-]*(\.[A-Za-z_][A-Za-z0-9_:/-]*)*$/.test(raw) || raw.length > 200)
    throw new ConfigError(
      `${name} must be a claim name or a dotted path like realm_access.roles; got "${raw}"`,
    );
  return raw;
}
