import { createHash } from 'node:crypto';
import { validSnapshot } from './snapshot-schema';
import type { CatalogSnapshot } from './snapshot-schema';

/**
 * What the gateway keeps in Redis (L2), and the one boundary where it comes back: a value read
 * from Redis is untrusted (truncated, written by another program or version, or tampered
 * with), so it is parsed here into a typed value, or refused.
 *
 * Keys name everything a value depends on: the metadata database (its identity), the tenant
 * (its incarnation: a tenant deleted and created again is another one) and its catalog
 * version. Values carry a SHA-256 of their body, so a truncated or foreign value is refused
 * before it is parsed or sent to a client.
 */

export type { CatalogSnapshot } from './snapshot-schema';

/** The key space of one tenant incarnation in one metadata database. */
export function tenantScope(databaseId: string, tenant: { id: string; createdAt: string }): string {
  const incarnation = createHash('sha256')
    .update(`${databaseId}|${tenant.createdAt}`)
    .digest('base64url')
    .slice(0, 16);
  return `${tenant.id}.${incarnation}`;
}

export function catalogKey(scope: string, version: number): string {
  return `catalog:${scope}:v${version}`;
}

/** `listKey` is the toolset key plus format, which starts with the tenant id. */
export function listKey(scope: string, list: string): string {
  return `list:${scope}:${list}`;
}

const VERSION = 'g1';

/** `<version>.<sha256 of body>.<body>` */
export function seal(body: string): string {
  return `${VERSION}.${digest(body)}.${body}`;
}

/** The body if the value is intact, else undefined. */
export function unseal(raw: string): string | undefined {
  const first = raw.indexOf('.');
  const second = raw.indexOf('.', first + 1);
  if (first < 0 || second < 0 || raw.slice(0, first) !== VERSION) return undefined;
  const body = raw.slice(second + 1);
  return raw.slice(first + 1, second) === digest(body) ? body : undefined;
}

function digest(body: string): string {
  return createHash('sha256').update(body).digest('base64url');
}

/** A list body from L2, or undefined: intact, JSON, and a `tools` array. */
export function openListBody(raw: string): string | undefined {
  const body = unseal(raw);
  if (body === undefined) return undefined;
  const parsed = parseJson(body);
  return isRecord(parsed) && Array.isArray(parsed.tools) ? body : undefined;
}

/**
 * A catalog snapshot from L2, or undefined: intact, of the right shape, and of the tenant
 * incarnation and version asked for.
 */
export function openSnapshot(
  raw: string,
  expected: { tenantId: string; createdAt: string; version: number },
): CatalogSnapshot | undefined {
  const body = unseal(raw);
  if (body === undefined) return undefined;
  const parsed = parseJson(body);
  if (!validSnapshot(parsed)) return undefined;
  const { tenant } = parsed;
  if (
    tenant.id !== expected.tenantId ||
    tenant.createdAt !== expected.createdAt ||
    tenant.catalogVersion !== expected.version
  )
    return undefined;
  if (parsed.reports.some((r) => r.metadata.tenantId !== tenant.id)) return undefined;
  return parsed;
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
