import type { Principal } from '../../access/principal';

/**
 * The caller's identity as a `pass_identity` source is told it (issue #42), as the JSON its
 * sessions set in `request.jwt.claims` (PostgREST's convention): `sub` (the user id), `tenant`,
 * `roles`, and the token claims the operator lists (DATASOURCE_IDENTITY_CLAIMS). The gateway's
 * own three always win over a listed claim of the same name.
 */
export function identityClaims(principal: Principal, listed: readonly string[]): string {
  const claims: Record<string, unknown> = {};
  for (const name of listed)
    if (Object.prototype.hasOwnProperty.call(principal.claims, name))
      claims[name] = principal.claims[name];
  return JSON.stringify({
    ...claims,
    sub: principal.userId,
    tenant: principal.tenantId,
    roles: [...principal.roles],
  });
}
