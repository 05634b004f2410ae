import { createHash } from 'node:crypto';
import { seal, unseal } from '../catalog/cache/l2-values';
import type { ToolResultPage } from './tool-outcome';

/**
 * The result cache's keys and its values in Redis (issue #41). Pure: no I/O, unit-tested.
 *
 * A key names everything a page of rows depends on: the metadata database and the tenant's
 * incarnation (the scope), the report and the tenant's catalog version (any change to a report,
 * a grant or a data source of the tenant bumps it, so older entries are never read again), the
 * data source's revision, and the SQL's bound values: the caller's identity-bound values, the
 * arguments with their defaults applied in the template's order, and the page's limit and
 * offset. Two callers share an entry exactly when the database would be sent the same query.
 */
export interface ResultKeyParts {
  scope: string;
  reportId: string;
  catalogVersion: number;
  /** the data source's revision, or '' for the tenant's schema in the gateway's database */
  sourceRevision: string;
  /** the paged SQL's text: its bound values only mean something with it */
  text: string;
  /** every bound value, identity-bound ones included, in placeholder order */
  values: readonly unknown[];
}

export function resultKey(parts: ResultKeyParts): string {
  const digest = createHash('sha256')
    .update(parts.sourceRevision)
    .update('\0')
    .update(parts.text)
    .update('\0')
    .update(JSON.stringify(parts.values, bigintSafe))
    .digest('base64url');
  return `result:${parts.scope}:${parts.reportId}:v${parts.catalogVersion}:${digest}`;
}

/** A page as cached: its rows' JSON as the database's answer made it, and when it was read. */
export interface CachedPage {
  /** ISO time the rows were read from the database */
  cachedAt: string;
  /** epoch ms after which the entry is no answer */
  expiresAt: number;
  columns: ToolResultPage['columns'];
  page: number;
  page_size: number;
  has_more: boolean;
  rows: ToolResultPage['rows'];
  rowsJson: string;
}

/**
 * `<seal>` of `<header JSON>\n<rows JSON>`: the header names the key it was written for, so a
 * value copied under another key (another tenant's, another caller's) is refused on read.
 */
export function sealResult(key: string, page: CachedPage): string {
  const header = {
    key,
    cachedAt: page.cachedAt,
    expiresAt: page.expiresAt,
    columns: page.columns,
    page: page.page,
    page_size: page.page_size,
    has_more: page.has_more,
  };
  return seal(`${JSON.stringify(header)}\n${page.rowsJson}`);
}

/**
 * The page a Redis value holds for `key`, or undefined: intact (its digest), written for this
 * very key, not expired, and of the right shape. A corrupt or foreign value is a miss, never
 * an answer.
 */
export function openResult(raw: string, key: string, now: number): CachedPage | undefined {
  const body = unseal(raw);
  if (body === undefined) return undefined;
  const cut = body.indexOf('\n');
  if (cut < 0) return undefined;
  const header = parse(body.slice(0, cut));
  const rowsJson = body.slice(cut + 1);
  if (!isRecord(header) || header.key !== key) return undefined;
  const { cachedAt, expiresAt, columns, page, page_size, has_more } = header;
  if (
    typeof cachedAt !== 'string' ||
    Number.isNaN(Date.parse(cachedAt)) ||
    typeof expiresAt !== 'number' ||
    expiresAt <= now ||
    !Array.isArray(columns) ||
    !columns.every(
      (c) => isRecord(c) && typeof c.name === 'string' && typeof c.type === 'string',
    ) ||
    !Number.isInteger(page) ||
    !Number.isInteger(page_size) ||
    typeof has_more !== 'boolean'
  )
    return undefined;
  const rows = parse(rowsJson);
  if (!Array.isArray(rows) || !rows.every(isRecord)) return undefined;
  return {
    cachedAt,
    expiresAt,
    columns: columns as CachedPage['columns'],
    page: page as number,
    page_size: page_size as number,
    has_more,
    rows: rows as CachedPage['rows'],
    rowsJson,
  };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function bigintSafe(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${value}n` : value;
}
