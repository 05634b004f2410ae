/** Injection tokens the gateway provides to the registry. */
export const DATABASE = Symbol('DATABASE');
export const REGISTRY_OPTIONS = Symbol('REGISTRY_OPTIONS');

export interface RegistryOptions {
  statementTimeoutMs: number;
  maxResultBytes: number;
}
