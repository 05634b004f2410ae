import { AllowedNetworks } from './boundary/allowed-networks';
import { endpointLabel, ENGINE_SCHEMES } from './boundary/source-address';
import type { SourceEndpoint } from './boundary/source-address';

/** Tenant data sources (issues #30, #37): the key, where sources may point, the pools' limits. */
export interface DatasourceOptions {
  /** AES-256-GCM key (32 bytes) sealing connections; null: sources cannot be registered or used */
  key: Buffer | null;
  /** keys that still open connections sealed before a key change */
  previousKeys: Buffer[];
  /** a connection to a source not made within this long fails the call (DATASOURCE_UNAVAILABLE) */
  connectTimeoutMs: number;
  /** connections this instance may hold to all sources together (each pool counts its max) */
  connectionBudget: number;
  /** connections one tenant's sources may hold together on this instance (its share) */
  tenantConnections: number;
  /** the largest pool_max a source may ask for */
  maxPool: number;
  /** the longest statement_timeout_ms a source may ask for; longer stored ones are cut to it */
  maxStatementTimeoutMs: number;
  /** the networks a source may point at (DATASOURCE_ALLOWED_NETWORKS) */
  networks: AllowedNetworks;
  /** token claims a `pass_identity` source is told besides sub, tenant and roles */
  identityClaims: string[];
  /** a source's pool unused this long is closed (its connections go after this long idle too) */
  idleCloseMs: number;
  /** connection failures in a row that open an endpoint's circuit breaker */
  breakerFailures: number;
  /** how long an open breaker fails calls at once before one trial call goes through */
  breakerCooldownMs: number;
}

export const DEFAULT_DATASOURCE_OPTIONS: DatasourceOptions = {
  key: null,
  previousKeys: [],
  connectTimeoutMs: 2000,
  connectionBudget: 100,
  tenantConnections: 20,
  maxPool: 10,
  maxStatementTimeoutMs: 60_000,
  networks: AllowedNetworks.parse(undefined),
  identityClaims: [],
  idleCloseMs: 60_000,
  breakerFailures: 3,
  breakerCooldownMs: 5000,
};

/**
 * The connection of a source as sealed: URLs with their logins (parsed again, by the same rules,
 * whenever they are opened) and the CA it trusts. Never logged, never returned.
 */
export interface SourceConnection {
  url: string;
  replicas: string[];
  ca_pem?: string;
}

/** An endpoint as the API and the logs show it: no password, ever (userinfo or parameter). */
export function shownUrl(e: SourceEndpoint): string {
  const scheme = ENGINE_SCHEMES[e.engine].schemes[0];
  const tls = e.sslmode === 'disable' ? '' : `?sslmode=${e.sslmode}`;
  return `${scheme}://${encodeURIComponent(e.user)}@${endpointLabel(e)}/${encodeURIComponent(e.database)}${tls}`;
}
