import { readerRole } from '@app/db';
import type { RegistryOptions } from '../tokens';

const IDENTIFIER = /^[a-z][a-z0-9_]*$/;
/** a data schema: a source's may be e.g. `public` or `_staging` */
const SCHEMA = /^[a-z_][a-z0-9_]*$/;

const DEFAULT_WORK_MEM_KB = 8 * 1024;
const DEFAULT_TEMP_FILE_LIMIT_KB = 256 * 1024;

export interface SessionLimits {
  statementTimeoutMs: number;
  /** memory per sort/hash before spilling to disk */
  workMemKb: number;
  /** disk a query may spill to; 0 leaves the server's setting (it needs superuser to set) */
  tempFileLimitKb: number;
}

/** The limits every read-only report session gets, from the registry options. */
export function sessionLimits(options: RegistryOptions): SessionLimits {
  return {
    statementTimeoutMs: options.statementTimeoutMs,
    workMemKb: options.workMemKb ?? DEFAULT_WORK_MEM_KB,
    tempFileLimitKb: options.tempFileLimitKb ?? DEFAULT_TEMP_FILE_LIMIT_KB,
  };
}

/** What a session is for, besides its limits. */
export interface SessionPurpose {
  /** the request's trace id, as application_name: a slow query in pg_stat_activity leads back */
  traceId?: string;
  /**
   * For a read that runs a named statement (ADR 0005): plan it for its values on every call.
   * After five runs Postgres may switch a named statement to a generic plan, which keeps a
   * report's optional filters ("(:x IS NULL OR col = :x)") as runtime tests and can scan far
   * slower; the statement is still parsed only once per connection.
   */
  customPlans?: boolean;
  /**
   * On a `pass_identity` source (issue #42): the caller's identity as JSON, set as the
   * transaction's `request.jwt.claims` (PostgREST's convention) for the server's own policies.
   */
  claims?: string;
}

/**
 * One statement that sets, for this transaction only: read-only, the pinned search_path
 * (pg_temp last), the statement timeout, the memory and temp-file limits, and the tenant's
 * SELECT-only role (last: the limits need the gateway's own privileges). One
 * `SELECT set_config(name, value, true), ...` does what BEGIN READ ONLY and a `SET LOCAL` per
 * setting did, with the same privilege checks (`set_config('role', ...)` is `SET ROLE`), in one
 * Parse/Bind/Execute instead of seven (ADR 0001, revisited twice). On Postgres it opens the
 * implicit transaction that the extended protocol keeps until the Sync after the query (no
 * BEGIN, no ROLLBACK: the Sync ends it, and with it every setting); PGlite wraps it in BEGIN
 * ... ROLLBACK (db/connect/connection.ts). Role-level settings (ALTER ROLE ... SET) would not apply:
 * Postgres reads them at login only, never on SET ROLE. Built from identifiers and integers
 * checked here again (fail closed), so it can go ahead of the query in one write.
 */
export function sessionSetup(
  tenantId: string,
  dataSchema: string,
  limits: SessionLimits,
  purpose: SessionPurpose = {},
): string[] {
  return session(dataSchema, limits, purpose, tenantId);
}

/**
 * The session on a tenant's own server (issue #30): the same, without SET ROLE (the registered
 * login is itself read-only, checked at registration) and without temp_file_limit (a setting
 * only a superuser, or a grant, may change: that server's own limit applies).
 */
export function sourceSessionSetup(
  dataSchema: string,
  limits: SessionLimits,
  purpose: SessionPurpose = {},
): string[] {
  return session(dataSchema, { ...limits, tempFileLimitKb: 0 }, purpose);
}

function session(
  dataSchema: string,
  limits: SessionLimits,
  { traceId, customPlans, claims }: SessionPurpose,
  /** the tenant whose reader role the session takes; undefined: the login's own */
  tenantId?: string,
): string[] {
  const numbers = [limits.statementTimeoutMs, limits.workMemKb, limits.tempFileLimitKb];
  if (
    (tenantId !== undefined && !IDENTIFIER.test(tenantId)) ||
    !SCHEMA.test(dataSchema) ||
    !numbers.every((n) => Number.isSafeInteger(n) && n >= 0) ||
    (traceId !== undefined && !/^[0-9a-f]{32}$/.test(traceId))
  ) {
    throw new Error(
      `refusing to build a session for tenant ${JSON.stringify(tenantId)} / schema ${JSON.stringify(dataSchema)}`,
    );
  }
  const settings: Array<[string, string]> = [
    // first: nothing after it, the setup's own settings included, may write
    ['transaction_read_only', 'on'],
    ['search_path', `"${dataSchema}", pg_catalog, pg_temp`],
    ['statement_timeout', String(limits.statementTimeoutMs)],
    ['work_mem', `${limits.workMemKb}kB`],
    ...(limits.tempFileLimitKb > 0
      ? [['temp_file_limit', `${limits.tempFileLimitKb}kB`] as [string, string]]
      : []),
    ...(customPlans ? [['plan_cache_mode', 'force_custom_plan'] as [string, string]] : []),
    ...(traceId ? [['application_name', `gateway trace=${traceId}`] as [string, string]] : []),
    ...(tenantId !== undefined ? [['role', readerRole(tenantId)] as [string, string]] : []),
  ];
  const identity =
    claims === undefined ? '' : `, set_config('request.jwt.claims', ${literal(claims)}, true)`;
  return [
    `SELECT ${settings.map(([name, value]) => `set_config('${name}', '${value}', true)`).join(', ')}${identity}`,
  ];
}

/**
 * Text as an escape-string literal: E'...' reads backslashes as escapes whatever the server's
 * standard_conforming_strings, so doubling them and the quotes is the whole of it. Only JSON
 * the gateway serialised itself comes here, bounded in size.
 */
function literal(text: string): string {
  if (text.length > 8192 || text.includes('\0')) throw new Error('refusing an identity this large');
  return `E'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}
