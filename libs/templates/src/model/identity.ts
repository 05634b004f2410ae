/**
 * Identity-bound parameters: filled from the verified token, never from tool arguments.
 * `:tenant_id`, `:user_id` and `:claim_<name>` for token claims the deployment allows.
 */
export interface Identity {
  tenantId: string;
  userId: string;
  claims: Readonly<Record<string, string>>;
}

export const CLAIM_PARAM_PREFIX = 'claim_';

export function isIdentityParam(name: string): boolean {
  return name === 'tenant_id' || name === 'user_id' || name.startsWith(CLAIM_PARAM_PREFIX);
}

/** The value of an identity parameter for this caller, or undefined when the token lacks it. */
export function identityValue(identity: Identity, name: string): string | undefined {
  if (name === 'tenant_id') return identity.tenantId;
  if (name === 'user_id') return identity.userId;
  if (name.startsWith(CLAIM_PARAM_PREFIX)) {
    const claim = name.slice(CLAIM_PARAM_PREFIX.length);
    return Object.prototype.hasOwnProperty.call(identity.claims, claim)
      ? identity.claims[claim]
      : undefined;
  }
  return undefined;
}
