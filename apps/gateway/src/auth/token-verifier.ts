import type { Principal } from '@app/registry';
import { Inject, Injectable } from '@nestjs/common';
import { createRemoteJWKSet, errors, jwtVerify } from 'jose';
import { LRUCache } from 'lru-cache';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { gatewayConfig } from '../config/gateway.config';
import type { GatewayConfig } from '../config/gateway.config';
import { signingSecret } from './signing-key';

/**
 * Why a request is not authenticated. `missing`: no bearer token (RFC 6750: the challenge
 * carries no error code); `invalid`: a token that is bad, expired or lacks a claim
 * (`error="invalid_token"`).
 */
export class AuthError extends Error {
  constructor(
    message: string,
    readonly reason: 'missing' | 'invalid' = 'invalid',
  ) {
    super(message);
  }
}

/** A claim by name or by dotted path (`realm_access.roles`, as Keycloak nests roles). */
function claim(payload: JWTPayload, path: string): unknown {
  if (path in payload) return payload[path];
  let value: unknown = payload;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Roles as an array of strings, or as one space- or comma-separated string (scope style). */
function roleList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((r): r is string => typeof r === 'string');
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  return [];
}

function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
}

/** Bearer JWT -> Principal. Only the configured bindable claims are carried over. */
@Injectable()
export class TokenVerifier {
  private readonly key: JWTVerifyGetKey;
  private readonly verified = new LRUCache<string, { principal: Principal; expiresAt: number }>({
    max: 10_000,
  });

  constructor(@Inject(gatewayConfig.KEY) private readonly config: GatewayConfig) {
    if (config.auth.jwksUrl) {
      this.key = createRemoteJWKSet(new URL(config.auth.jwksUrl));
    } else {
      const secret = signingSecret(config);
      this.key = async () => secret;
    }
  }

  /** The principal of a token this instance verified before and that has not expired; no I/O. */
  cached(authorization: string | undefined): Principal | undefined {
    const token = bearerToken(authorization);
    const known = token === undefined ? undefined : this.verified.get(token);
    return known && known.expiresAt > Date.now() ? known.principal : undefined;
  }

  async verify(authorization: string | undefined): Promise<Principal> {
    const known = this.cached(authorization);
    if (known) return known;
    const token = bearerToken(authorization);
    if (token === undefined)
      throw new AuthError('missing bearer token: send Authorization: Bearer <JWT>', 'missing');
    let payload: JWTPayload;
    try {
      const options = {
        issuer: this.config.auth.issuer,
        audience: this.config.auth.audience,
        // an identity provider signs with its private key; the dev secret is HS256 only
        algorithms: this.config.auth.jwksUrl ? ['RS256', 'ES256'] : ['HS256'],
      };
      payload = (await jwtVerify(token, this.key, options)).payload;
    } catch (err) {
      if (err instanceof errors.JWTExpired) throw new AuthError('the token has expired');
      throw new AuthError('the token is invalid');
    }
    const principal = this.toPrincipal(payload);
    // A token says the same thing until it expires: verify it once, not on every request.
    const expiresAt = Math.min(
      payload.exp !== undefined ? payload.exp * 1000 : Infinity,
      Date.now() + 600_000,
    );
    this.verified.set(token, { principal, expiresAt });
    return principal;
  }

  private toPrincipal(payload: JWTPayload): Principal {
    const names = this.config.auth.claimNames;
    const tenant = claim(payload, names.tenant);
    if (typeof tenant !== 'string' || !/^[a-z][a-z0-9_]*$/.test(tenant))
      throw new AuthError(`the token has no valid ${names.tenant} claim (the tenant)`);
    const user = claim(payload, names.user);
    if (typeof user !== 'string' || user === '')
      throw new AuthError(`the token has no ${names.user} claim (the user)`);
    const roles = roleList(claim(payload, names.roles));
    const claims: Record<string, string> = {};
    for (const name of this.config.auth.boundClaims) {
      const value = payload[name];
      if (typeof value === 'string' || typeof value === 'number') claims[name] = String(value);
    }
    return { tenantId: tenant, userId: user, roles, claims };
  }
}
