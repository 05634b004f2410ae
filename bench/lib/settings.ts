import { randomBytes } from 'node:crypto';
import path from 'node:path';

/** Where the bench finds its servers and the app; loopback only. */
export const ROOT = path.resolve(__dirname, '../..');
export const GATEWAY_MAIN = path.join(ROOT, 'dist/apps/gateway/src/main.js');
export const TSX_BIN = path.join(ROOT, 'node_modules/.bin/tsx');

export const PG_HOST = '127.0.0.1';
export const PG_PORT = 5432;
export const PG_USER = 'postgres';
export const REDIS_URL = 'redis://127.0.0.1:6379';

export function pgUrl(database: string): string {
  return `postgres://${PG_USER}@${PG_HOST}:${PG_PORT}/${database}`;
}

/** The gateway's DB_POOL_SIZE, set explicitly on the gateway and on every direct baseline. */
export const DB_POOL_SIZE = 10;

/** One HS256 secret per run: the gateways verify with it, the bench signs with it. */
export const JWT_SECRET = randomBytes(32).toString('base64url');

/** Unique per run: names the databases, Redis prefixes and synthetic tenants. */
export const RUN_ID = `${Date.now()}`;

/** Files of this run's gateways (git-ignored; removed at cleanup). */
export const RUN_TMP = path.join(ROOT, 'bench/.tmp', RUN_ID);
