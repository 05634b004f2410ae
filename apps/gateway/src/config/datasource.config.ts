import { readFileSync } from 'node:fs';
import { AllowedNetworks, parseDatasourceKey } from '@app/registry';
import { ConfigError, integer } from './env';
import type { Env } from './env';

/** Tenant data sources: DATASOURCE_* (docs/configuration.md#tenant-data-sources). */
export interface DatasourceSettings {
  /** the AES-256-GCM key; undefined: the dev key file under DATA_DIR (not in production) */
  key: Buffer | undefined;
  /** keys that still open connections sealed before a key change */
  previousKeys: Buffer[];
  connectTimeoutMs: number;
  connectionBudget: number;
  tenantConnections: number;
  maxPool: number;
  maxStatementTimeoutMs: number;
  networks: AllowedNetworks;
  identityClaims: string[];
  idleCloseMs: number;
  breakerFailures: number;
  breakerCooldownMs: number;
}

function keyFrom(name: string, text: string): Buffer {
  const key = parseDatasourceKey(text);
  if (!key)
    throw new ConfigError(
      `${name} must be 32 bytes as base64 (44 characters) or hex (64 characters), e.g. from \`openssl rand -base64 32\``,
    );
  return key;
}

function keyFile(name: string, file: string): Buffer {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `${name} ${file} cannot be read (${(err as { code?: string }).code ?? 'error'})`,
    );
  }
  return keyFrom(name, text);
}

export function datasourceSettings(env: Env): DatasourceSettings {
  if (env.DATASOURCE_KEY && env.DATASOURCE_KEY_FILE)
    throw new ConfigError('set DATASOURCE_KEY or DATASOURCE_KEY_FILE, not both');
  const key = env.DATASOURCE_KEY
    ? keyFrom('DATASOURCE_KEY', env.DATASOURCE_KEY)
    : env.DATASOURCE_KEY_FILE
      ? keyFile('DATASOURCE_KEY_FILE', env.DATASOURCE_KEY_FILE)
      : undefined;
  const previousKeys = (env.DATASOURCE_KEY_PREVIOUS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
    .map((k) => keyFrom('DATASOURCE_KEY_PREVIOUS', k));
  const connectionBudget = integer(env, 'DATASOURCE_CONNECTION_BUDGET', 100, 1, 10_000);
  const tenantConnections = integer(
    env,
    'DATASOURCE_TENANT_CONNECTIONS',
    Math.max(1, Math.min(20, Math.floor(connectionBudget / 5))),
    1,
    10_000,
  );
  if (tenantConnections > connectionBudget)
    throw new ConfigError(
      `DATASOURCE_TENANT_CONNECTIONS (${tenantConnections}) must not exceed DATASOURCE_CONNECTION_BUDGET (${connectionBudget})`,
    );
  let networks: AllowedNetworks;
  try {
    networks = AllowedNetworks.parse(env.DATASOURCE_ALLOWED_NETWORKS);
  } catch (err) {
    throw new ConfigError(
      `DATASOURCE_ALLOWED_NETWORKS: ${(err as Error).message}; give comma-separated CIDRs and/or the word public`,
    );
  }
  return {
    key,
    previousKeys,
    connectTimeoutMs: integer(env, 'DATASOURCE_CONNECT_TIMEOUT_MS', 2000, 100, 60_000),
    connectionBudget,
    tenantConnections,
    maxPool: integer(env, 'DATASOURCE_MAX_POOL', 10, 1, 100),
    maxStatementTimeoutMs: integer(
      env,
      'DATASOURCE_MAX_STATEMENT_TIMEOUT_MS',
      60_000,
      100,
      3_600_000,
    ),
    networks,
    identityClaims: identityClaims(env.DATASOURCE_IDENTITY_CLAIMS),
    idleCloseMs: integer(env, 'DATASOURCE_IDLE_CLOSE_MS', 60_000, 1000, 3_600_000),
    breakerFailures: integer(env, 'DATASOURCE_BREAKER_FAILURES', 3, 1, 100),
    breakerCooldownMs: integer(env, 'DATASOURCE_BREAKER_COOLDOWN_MS', 5000, 100, 600_000),
  };
}

/** DATASOURCE_IDENTITY_CLAIMS: claim names, each a plain name (no JSON path, no spaces). */
function identityClaims(text: string | undefined): string[] {
  const names = (text ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  const bad = names.find((n) => !/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/.test(n));
  if (bad !== undefined)
    throw new ConfigError(
      `DATASOURCE_IDENTITY_CLAIMS: "${bad.slice(0, 80)}" is not a claim name (letters, digits, _ . : -)`,
    );
  return names;
}
