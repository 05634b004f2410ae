import type { SqlSession } from '@app/db';
import type { Connection } from 'mysql2/promise';
import { grantedRoles } from './mysql-grants';

/**
 * The SQL the gateway itself sends to a MySQL-protocol source (issue #42), all of it here: the
 * session's bounds, the read-only transaction, cancelling a running read, and what registration
 * and the health probe read. Numbers are checked before they are written into text.
 */
export const MYSQL_SQL = {
  /** MariaDB: seconds, any statement */
  mariadbTimeout: (ms: number) => `SET SESSION max_statement_time = ${seconds(ms)}`,
  /** MySQL 5.7.8+, TiDB and others: milliseconds, SELECT only (all a report runs) */
  mysqlTimeout: (ms: number) => `SET SESSION max_execution_time = ${whole(ms)}`,
  startReadOnly: 'START TRANSACTION READ ONLY',
  rollback: 'ROLLBACK',
  /** asked on a connection of its own: a full pool does not delay it */
  killQuery: (threadId: number) => `KILL QUERY ${whole(threadId)}`,
  showGrants: 'SHOW GRANTS',
  /** the listed tables the login can see in the source's database (information_schema shows only those) */
  visibleTables: `SELECT TABLE_NAME AS name FROM information_schema.TABLES
    WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (?)`,
  probe: 'SELECT VERSION() AS version',
  setRole: (role: string) => `SET ROLE ${quoted(role)}`,
  setNoRole: 'SET ROLE NONE',
} as const;

/** What registration reads of a MySQL login: its grants, its roles' grants, the tables it sees. */
export interface MysqlLogin {
  grants: string[];
  /** roles whose grants could not be read (on a server that is not MariaDB) */
  unreadRoles: string[];
  /** the listed tables the login cannot see in the database */
  missing: string[];
}

/**
 * The login's grants with those of every role it may take: MariaDB shows a role's grants (and
 * its roles', down the chain) in SHOW GRANTS once the role is set, so each granted role is set
 * in turn. Other servers' roles are reported unread: the caller refuses them (fail closed).
 */
export async function readMysqlLogin(
  c: Connection,
  database: string,
  tables: readonly string[],
): Promise<MysqlLogin> {
  const grants = await showGrants(c);
  const roles = grantedRoles(grants);
  const [[{ version }]] = (await c.query(MYSQL_SQL.probe)) as unknown as [[{ version: string }]];
  const unreadRoles: string[] = [];
  for (const role of roles.slice(0, 50)) {
    if (!/mariadb/i.test(version)) {
      unreadRoles.push(role);
      continue;
    }
    await c.query(MYSQL_SQL.setRole(role));
    grants.push(...(await showGrants(c)));
  }
  if (roles.length > 0 && /mariadb/i.test(version)) await c.query(MYSQL_SQL.setNoRole);
  const [seen] = (await c.query(MYSQL_SQL.visibleTables, [database, [...tables]])) as unknown as [
    Array<{ name: string }>,
  ];
  const visible = new Set(seen.map((r) => r.name));
  return { grants, unreadRoles, missing: tables.filter((t) => !visible.has(t)) };
}

async function showGrants(c: Connection): Promise<string[]> {
  const [rows] = (await c.query(MYSQL_SQL.showGrants)) as unknown as [Record<string, unknown>[]];
  return rows.map((row) => String(Object.values(row)[0]));
}

/** A name as a MySQL quoted identifier (a role's name comes from the server's own grants). */
function quoted(name: string): string {
  if (name.includes('\0')) throw new Error('refusing a name with a NUL');
  return `\`${name.replace(/`/g, '``')}\``;
}

/** The server's version over a session of a MySQL source's pool (the health probe). */
export async function probeMysqlServer(session: SqlSession): Promise<string> {
  const { rows } = await session.query(MYSQL_SQL.probe);
  return String(rows[0]?.version ?? '');
}

function whole(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`refusing ${n} as a MySQL bound`);
  return String(n);
}

function seconds(ms: number): string {
  return (Number(whole(ms)) / 1000).toFixed(3);
}
