import pg from 'pg';
import type { SqlSession } from '@app/db';

/** What the gateway learns of a login on a tenant's server when it connects with it. */
export interface LoginFacts {
  serverVersion: string;
  superuser: boolean;
  /** roles the login may create or databases it may create: writing, of a kind */
  createRole: boolean;
  createDb: boolean;
  /** relations (schema.name) the login may INSERT, UPDATE, DELETE or TRUNCATE (some of them) */
  writable: string[];
  /** listed tables the login owns */
  owned: string[];
  /** whether the login may CREATE in the schema */
  createInSchema: boolean;
  schemaExists: boolean;
  /** listed tables that do not exist in the schema */
  missing: string[];
  /** listed tables the login may not SELECT */
  unreadable: string[];
}

/** How many writable relations are named at most in a refusal. */
const NAMED = 5;

/**
 * Connects to a tenant's server with the login given and reads, from the server's own catalog,
 * everything that says whether the login is read-only over what it can reach (issue #30). One
 * connection, closed at the end; `connectTimeoutMs` bounds the connect, `statement_timeout`
 * the reads.
 */
export async function readLoginFacts(
  url: string,
  schema: string,
  tables: readonly string[],
  connectTimeoutMs: number,
): Promise<LoginFacts> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: connectTimeoutMs,
    statement_timeout: Math.max(connectTimeoutMs, 5000),
    application_name: 'gateway-datasource-check',
  });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const role = await client.query<{
      version: string;
      rolsuper: boolean;
      rolcreaterole: boolean;
      rolcreatedb: boolean;
    }>(
      `SELECT current_setting('server_version') AS version, r.rolsuper, r.rolcreaterole, r.rolcreatedb
         FROM pg_catalog.pg_roles r WHERE r.rolname = current_user`,
    );
    // Every relation outside the system schemas the login may write, by any grant (its own,
    // PUBLIC's, a role it inherits), column grants included.
    const writable = await client.query<{ name: string }>(
      `SELECT format('%I.%I', n.nspname, c.relname) AS name
         FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
          AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
          AND (pg_catalog.has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE')
               OR pg_catalog.has_any_column_privilege(c.oid, 'INSERT, UPDATE'))
        ORDER BY 1 LIMIT ${NAMED}`,
    );
    const listed = await client.query<{
      name: string;
      found: boolean;
      owned: boolean;
      readable: boolean;
    }>(
      `SELECT t.name,
              c.oid IS NOT NULL AS found,
              coalesce(pg_catalog.pg_has_role(c.relowner, 'USAGE'), false) AS owned,
              coalesce(pg_catalog.has_table_privilege(c.oid, 'SELECT'), false) AS readable
         FROM unnest($2::text[]) AS t(name)
         LEFT JOIN pg_catalog.pg_namespace n ON n.nspname = $1
         LEFT JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = t.name
              AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`,
      [schema, [...tables]],
    );
    const space = await client.query<{ found: boolean; can_create: boolean }>(
      `SELECT n.oid IS NOT NULL AS found,
              coalesce(pg_catalog.has_schema_privilege(n.oid, 'CREATE'), false) AS can_create
         FROM (SELECT 1) one LEFT JOIN pg_catalog.pg_namespace n ON n.nspname = $1`,
      [schema],
    );
    const r = role.rows[0];
    return {
      serverVersion: r.version,
      superuser: r.rolsuper,
      createRole: r.rolcreaterole,
      createDb: r.rolcreatedb,
      writable: writable.rows.map((w) => w.name),
      owned: listed.rows.filter((t) => t.owned).map((t) => t.name),
      createInSchema: space.rows[0].can_create,
      schemaExists: space.rows[0].found,
      missing: listed.rows.filter((t) => !t.found).map((t) => t.name),
      unreadable: listed.rows.filter((t) => t.found && !t.readable).map((t) => t.name),
    };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A health probe over a pooled session: the server's version, or the error. */
export const PROBE_SQL = `SELECT current_setting('server_version') AS version`;

/** The server's version over a session of a source's pool (the health probe). */
export async function probeServer(session: SqlSession): Promise<string> {
  const { rows } = await session.query(PROBE_SQL);
  return String(rows[0]?.version ?? '');
}
