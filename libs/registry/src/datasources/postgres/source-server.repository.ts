import type pg from 'pg';
import type { SqlSession } from '@app/db';

/** What the gateway learns of a login on a tenant's server when it connects with it. */
export interface LoginFacts {
  serverVersion: string;
  /**
   * What the login and every role it may become (SET ROLE: a member, inherited or not) may do
   * beyond reading, one entry per role and power: `role: power` (issue #37).
   */
  powers: string[];
  /** relations and sequences (schema.name) one of those roles may write (some of them) */
  writable: string[];
  /** objects outside the system schemas one of those roles owns (schema, relation, function) */
  owned: string[];
  /** large objects one of those roles may write (or every one, with lo_compat_privileges) */
  largeObjects: number;
  /** schemas one of those roles may CREATE in, and whether it may CREATE in the database */
  createIn: string[];
  schemaExists: boolean;
  /** listed tables that do not exist in the schema */
  missing: string[];
  /** listed tables the login may not SELECT */
  unreadable: string[];
}

/** How many objects of a kind are named at most in a refusal. */
const NAMED = 5;

/** Every role the session user may become, itself included (pg_has_role MEMBER ignores INHERIT). */
const REACH = `SELECT r.oid, r.rolname FROM pg_catalog.pg_roles r
                WHERE pg_catalog.pg_has_role(session_user, r.oid, 'MEMBER')`;
const USER_SCHEMA = `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'`;

/** Powers that write, or reach past the tables: by attribute, or by a predefined role. */
const POWERS = `
  WITH reach AS (${REACH})
  SELECT format('%s: %s', r.rolname, p.power) AS power
    FROM reach JOIN pg_catalog.pg_roles r ON r.oid = reach.oid,
         LATERAL (VALUES (r.rolsuper, 'superuser'), (r.rolcreaterole, 'CREATEROLE'),
                         (r.rolcreatedb, 'CREATEDB'), (r.rolreplication, 'REPLICATION'),
                         (r.rolbypassrls, 'BYPASSRLS'),
                         (r.rolname IN ('pg_write_all_data', 'pg_write_server_files',
                                        'pg_read_server_files', 'pg_execute_server_program',
                                        'pg_signal_backend', 'pg_checkpoint'), 'a predefined role that writes or reaches the server'))
                 AS p(held, power)
   WHERE p.held ORDER BY 1 LIMIT 20`;

const WRITABLE = `
  WITH reach AS (${REACH})
  SELECT format('%I.%I', n.nspname, c.relname) AS name
    FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
   WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') AND ${USER_SCHEMA}
     AND EXISTS (SELECT 1 FROM reach WHERE
           CASE WHEN c.relkind = 'S'
                THEN pg_catalog.has_sequence_privilege(reach.oid, c.oid, 'USAGE, UPDATE')
                ELSE pg_catalog.has_table_privilege(reach.oid, c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE')
                  OR pg_catalog.has_any_column_privilege(reach.oid, c.oid, 'INSERT, UPDATE') END)
   ORDER BY 1 LIMIT ${NAMED}`;

const OWNED = `
  SELECT name FROM (
    SELECT format('schema %I', n.nspname) AS name, n.nspowner AS owner FROM pg_catalog.pg_namespace n WHERE ${USER_SCHEMA}
    UNION ALL
    SELECT format('%I.%I', n.nspname, c.relname), c.relowner
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') AND ${USER_SCHEMA}
    UNION ALL
    SELECT format('function %I.%I', n.nspname, p.proname), p.proowner
      FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE ${USER_SCHEMA}
    UNION ALL
    SELECT format('database %I', d.datname), d.datdba FROM pg_catalog.pg_database d WHERE d.datname = current_database()
  ) o WHERE pg_catalog.pg_has_role(session_user, o.owner, 'MEMBER') ORDER BY 1 LIMIT ${NAMED}`;

const LARGE_OBJECTS = `
  SELECT count(*)::int AS n FROM pg_catalog.pg_largeobject_metadata m
   WHERE current_setting('lo_compat_privileges') = 'on'
      OR pg_catalog.pg_has_role(session_user, m.lomowner, 'MEMBER')
      OR EXISTS (SELECT 1 FROM pg_catalog.aclexplode(m.lomacl) a
                  WHERE a.privilege_type = 'UPDATE'
                    AND (a.grantee = 0 OR pg_catalog.pg_has_role(session_user, a.grantee, 'MEMBER')))`;

const CREATE_IN = `
  WITH reach AS (${REACH})
  SELECT name FROM (
    SELECT format('database %I', current_database()) AS name
     WHERE EXISTS (SELECT 1 FROM reach WHERE pg_catalog.has_database_privilege(reach.oid, current_database(), 'CREATE'))
    UNION ALL
    SELECT format('schema %I', n.nspname) FROM pg_catalog.pg_namespace n
     WHERE ${USER_SCHEMA} AND EXISTS (SELECT 1 FROM reach WHERE pg_catalog.has_schema_privilege(reach.oid, n.oid, 'CREATE'))
  ) c ORDER BY 1 LIMIT ${NAMED}`;

/**
 * Reads, over a connection made with the login given (the caller's client, connected through
 * the source connector), everything the server's own catalog says about whether that login is
 * read-only over what it can reach, counting every role it may become (issue #37).
 */
export async function readLoginFacts(
  client: pg.Client,
  schema: string,
  tables: readonly string[],
): Promise<LoginFacts> {
  const version = await client.query<{ version: string }>(
    `SELECT current_setting('server_version') AS version`,
  );
  const powers = await client.query<{ power: string }>(POWERS);
  const writable = await client.query<{ name: string }>(WRITABLE);
  const owned = await client.query<{ name: string }>(OWNED);
  const largeObjects = await client.query<{ n: number }>(LARGE_OBJECTS);
  const createIn = await client.query<{ name: string }>(CREATE_IN);
  const listed = await client.query<{ name: string; found: boolean; readable: boolean }>(
    `SELECT t.name,
            c.oid IS NOT NULL AS found,
            coalesce(pg_catalog.has_table_privilege(c.oid, 'SELECT'), false) AS readable
       FROM unnest($2::text[]) AS t(name)
       LEFT JOIN pg_catalog.pg_namespace n ON n.nspname = $1
       LEFT JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = t.name
            AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`,
    [schema, [...tables]],
  );
  const space = await client.query<{ found: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1) AS found`,
    [schema],
  );
  return {
    serverVersion: version.rows[0].version,
    powers: powers.rows.map((p) => p.power),
    writable: writable.rows.map((w) => w.name),
    owned: owned.rows.map((o) => o.name),
    largeObjects: largeObjects.rows[0].n,
    createIn: createIn.rows.map((c) => c.name),
    schemaExists: space.rows[0].found,
    missing: listed.rows.filter((t) => !t.found).map((t) => t.name),
    unreadable: listed.rows.filter((t) => t.found && !t.readable).map((t) => t.name),
  };
}

/** A health probe over a pooled session: the server's version, or the error. */
export const PROBE_SQL = `SELECT current_setting('server_version') AS version`;

/** The server's version over a session of a source's pool (the health probe). */
export async function probeServer(session: SqlSession): Promise<string> {
  const { rows } = await session.query(PROBE_SQL);
  return String(rows[0]?.version ?? '');
}
