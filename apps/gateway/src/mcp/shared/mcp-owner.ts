import type { Principal } from '@app/registry';

/** Who owns a session, a task or a listen stream: the caller's tenant and user. */
export function ownerOf(principal: Principal): string {
  return `${principal.tenantId}\u0000${principal.userId}`;
}
