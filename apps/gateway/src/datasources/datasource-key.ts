import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseDatasourceKey } from '@app/registry';
import type { GatewaySettings } from '../config/gateway.config';

/**
 * The key that seals data source connections: DATASOURCE_KEY or DATASOURCE_KEY_FILE when set;
 * otherwise, outside production, a dev key generated once under DATA_DIR (as the dev JWT
 * secret is); in production without a key, none (sources are refused, saying why).
 */
export function datasourceKey(settings: GatewaySettings): Buffer | null {
  if (settings.datasources.key) return settings.datasources.key;
  if (settings.nodeEnv === 'production') return null;
  return devKey(settings.dataDir);
}

function devKey(dataDir: string): Buffer {
  const file = path.resolve(dataDir, 'dev-datasource-key');
  const read = (): Buffer | undefined => {
    try {
      return parseDatasourceKey(readFileSync(file, 'utf8'));
    } catch {
      return undefined;
    }
  };
  const known = read();
  if (known) return known;
  mkdirSync(path.dirname(file), { recursive: true });
  // write then rename, so a concurrent reader never sees half a key
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, randomBytes(32).toString('base64'), { mode: 0o600 });
  renameSync(tmp, file);
  return read()!;
}
