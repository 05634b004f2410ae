import { SignJWT } from 'jose';
import { JWT_SECRET } from './settings';

export interface Identity {
  tenant: string;
  sub: string;
  roles: string[];
}

/** A real HS256 JWT with the claims the gateway reads; valid for the whole run. */
export function mintToken(identity: Identity): Promise<string> {
  return new SignJWT({ tenant: identity.tenant, roles: identity.roles })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(identity.sub)
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(JWT_SECRET));
}

export async function bearer(identity: Identity): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await mintToken(identity)}` };
}
