import type { Identity } from '@app/templates';

/** The verified caller: who, in which tenant, with which roles and claims. */
export interface Principal extends Identity {
  roles: readonly string[];
}
