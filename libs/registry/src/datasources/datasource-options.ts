/** Tenant data sources (issue #30): the key and the limits of the pools, from DATASOURCE_*. */
export interface DatasourceOptions {
  /** AES-256-GCM key (32 bytes) sealing connections; null: sources cannot be registered or used */
  key: Buffer | null;
  /** keys that still open connections sealed before a key change */
  previousKeys: Buffer[];
  /** a connection to a source not made within this long fails the call (DATASOURCE_UNAVAILABLE) */
  connectTimeoutMs: number;
  /** connections this instance may hold to all sources together (each pool counts its max) */
  connectionBudget: number;
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
  idleCloseMs: 60_000,
  breakerFailures: 3,
  breakerCooldownMs: 5000,
};

/** The connection of a source as sealed: URLs with their logins. Never logged, never returned. */
export interface SourceConnection {
  url: string;
  replicas: string[];
}

/** A URL without its password, for the API and the logs. */
export function shownUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '';
  return parsed.toString();
}
