import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { GatewaySettings } from '../config/gateway.config';

/**
 * The HS256 secret: AUTH_JWT_SECRET when set (gateway and token CLI alike), otherwise a
 * dev secret generated once under DATA_DIR. Production refuses the dev secret (see config).
 */
export function signingSecret(settings: GatewaySettings): Uint8Array {
  const secret = settings.auth.jwtSecret ?? devSecret(settings.dataDir);
  return new TextEncoder().encode(secret);
}

function devSecret(dataDir: string): string {
  const file = path.resolve(dataDir, 'dev-jwt-secret');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(path.dirname(file), { recursive: true });
    const secret = randomBytes(32).toString('base64url');
    // Write then rename, so a concurrent reader never sees a half-written secret.
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, secret, { mode: 0o600 });
    renameSync(tmp, file);
    return readFileSync(file, 'utf8').trim();
  }
}
