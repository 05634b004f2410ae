import type { TemplateProblem } from '@app/templates';
import mysql from 'mysql2/promise';
import { uniformly } from '../boundary/uniform-wait';
import type { SourceEndpoint } from '../boundary/source-address';
import type { SourceConnector } from '../boundary/source-connect';
import { grantProblems } from './mysql-grants';
import { mysqlOptions } from './mysql-connection';
import { readMysqlLogin } from './mysql-session.repository';

/**
 * Why a MySQL-protocol login must not be registered (issue #42): a grant beyond SELECT and SHOW
 * VIEW on the source's database (its roles' grants included), a role whose grants cannot be
 * read, a listed table it cannot see. Reached like a Postgres source: the address checked by the
 * connector, every failure to reach or log in answered after the same wait.
 */
export async function mysqlLoginProblems(
  connector: SourceConnector,
  endpoint: SourceEndpoint,
  source: { schema: string; tables: readonly string[]; caPem: string | undefined },
  timeoutMs: number,
  at: string,
): Promise<TemplateProblem[]> {
  const address = await connector.address(endpoint);
  let connection: mysql.Connection | undefined;
  let closed = false;
  const login = await uniformly(
    timeoutMs,
    async (timeout) => {
      const connecting = mysql.createConnection(
        mysqlOptions(endpoint, address, source.caPem, timeoutMs),
      );
      // a connection made after the wait is over is closed as soon as it is made
      connecting.then(
        (c) => {
          c.on('error', () => undefined);
          if (closed) c.destroy();
          else connection = c;
        },
        () => undefined,
      );
      const c = await Promise.race([connecting, timeout]);
      return Promise.race([readMysqlLogin(c, source.schema, source.tables), timeout]);
    },
    () => {
      closed = true;
      connection?.destroy();
    },
  );
  const problems: TemplateProblem[] = grantProblems(login.grants, source.schema).map((p) => ({
    rule: 'writable',
    message: `${at}: the login may do more than read: ${p}; grant it SELECT (and SHOW VIEW) on ${source.schema} only`,
  }));
  if (login.unreadRoles.length > 0)
    problems.push({
      rule: 'writable',
      message: `${at}: the login holds role(s) ${login.unreadRoles.join(', ')} whose grants this server does not show it; grant SELECT to the login itself`,
    });
  if (login.missing.length > 0)
    problems.push({
      rule: 'missing',
      message: `${at}: no table ${login.missing.join(', ')} that the login may read in database ${source.schema}`,
    });
  return problems;
}
