import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';

/**
 * The machine's MariaDB (127.0.0.1:3306) as a tenant's MySQL-protocol warehouse (issue #42). Its
 * root logs in by the unix socket (CI's setup: `.ci/run` starts MariaDB when it is down); each
 * spec gets a database and logins of its own, named at random, and drops them when it ends.
 */
const SOCKET = process.env.TEST_MARIADB_SOCKET ?? '/run/mysqld/mysqld.sock';
export const MARIADB_PORT = Number(process.env.TEST_MARIADB_PORT ?? 3306);

export interface MariaLogin {
  user: string;
  password: string;
  /** `mysql://user:password@127.0.0.1:3306/<database>` */
  url: string;
}

export interface MariaDatabase {
  name: string;
  /** root, on the socket: the test's own hand on the server */
  root: mysql.Connection;
  /** a login (`'user'@'%'`) given the statements `grants(user)` returns */
  login(grants: (user: string) => string[]): Promise<MariaLogin>;
  /** a role of this spec's own, given `grants(role)` */
  role(grants: (role: string) => string[]): Promise<string>;
  drop(): Promise<void>;
}

export async function rootConnection(): Promise<mysql.Connection> {
  return mysql.createConnection({
    socketPath: SOCKET,
    user: 'root',
    password: '',
    multipleStatements: true,
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
}

/** A database named at random, holding what `setup` (statements run inside it) creates. */
export async function createMariaDatabase(setup: string): Promise<MariaDatabase> {
  const root = await rootConnection();
  const name = `gw_${randomBytes(5).toString('hex')}`;
  await root.query(`CREATE DATABASE \`${name}\``);
  await root.query(`USE \`${name}\``);
  await root.query(setup);
  const users: string[] = [];
  const roles: string[] = [];
  return {
    name,
    root,
    async login(grants) {
      const user = `${name}_u${users.length}`;
      const password = randomBytes(9).toString('base64url');
      await root.query(`CREATE USER '${user}'@'%' IDENTIFIED BY '${password}'`);
      users.push(user);
      for (const statement of grants(`'${user}'@'%'`)) await root.query(statement);
      return {
        user,
        password,
        url: `mysql://${user}:${encodeURIComponent(password)}@127.0.0.1:${MARIADB_PORT}/${name}`,
      };
    },
    async role(grants) {
      const role = `${name}_r${roles.length}`;
      await root.query(`CREATE ROLE \`${role}\``);
      roles.push(role);
      for (const statement of grants(`\`${role}\``)) await root.query(statement);
      return role;
    },
    async drop() {
      for (const user of users) await root.query(`DROP USER IF EXISTS '${user}'@'%'`);
      for (const role of roles) await root.query(`DROP ROLE IF EXISTS \`${role}\``);
      await root.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await root.end();
    },
  };
}
