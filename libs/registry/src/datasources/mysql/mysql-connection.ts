import net from 'node:net';
import tls from 'node:tls';
import type { ConnectionOptions } from 'mysql2';
import type { SourceEndpoint } from '../boundary/source-address';

/**
 * mysql2's options for one server of a MySQL-protocol source (issue #42), built from the parsed
 * parts and the address the connector checked, never from a URL. No LOCAL INFILE (a server could
 * otherwise ask the gateway for any file it can read), one statement per query, dates and big
 * numbers as text (mapped by mysql-values.ts).
 */
export function mysqlOptions(
  endpoint: SourceEndpoint,
  address: string,
  caPem: string | undefined,
  connectTimeoutMs: number,
): ConnectionOptions {
  return {
    host: address,
    port: endpoint.port,
    user: endpoint.user,
    password: endpoint.password,
    database: endpoint.database,
    ssl: mysqlTls(endpoint, caPem),
    connectTimeout: connectTimeoutMs,
    flags: ['-LOCAL_FILES', '-MULTI_STATEMENTS', '-CONNECT_ATTRS'],
    multipleStatements: false,
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    charset: 'UTF8MB4_GENERAL_CI',
    // a report version's statement is prepared once per connection and kept
    maxPreparedStatements: 256,
  };
}

/** The `sslmode` values, as Postgres sources read them, for a MySQL connection. */
function mysqlTls(endpoint: SourceEndpoint, caPem: string | undefined): ConnectionOptions['ssl'] {
  const servername = net.isIP(endpoint.host) ? undefined : endpoint.host;
  switch (endpoint.sslmode) {
    case 'disable':
      return undefined;
    case 'require':
      return { rejectUnauthorized: false, servername } as ConnectionOptions['ssl'];
    case 'verify-ca':
      return {
        rejectUnauthorized: true,
        ca: caPem,
        servername,
        checkServerIdentity: () => undefined,
      } as ConnectionOptions['ssl'];
    case 'verify-full':
      return {
        rejectUnauthorized: true,
        ca: caPem,
        servername,
        checkServerIdentity: (_address: string, cert: tls.PeerCertificate) =>
          tls.checkServerIdentity(endpoint.host, cert),
      } as ConnectionOptions['ssl'];
  }
}

/**
 * A mysql2 error in the words the gateway reads failures in (read-failure.ts,
 * datasource-unavailable.ts), which name Postgres SQLSTATEs: a statement past its time is
 * 57014, a killed read 57014 too, a refused login 28P01, a full server 53300, a lost
 * connection ECONNRESET, a refused value its own 22xxx. The message is kept for the log.
 */
export function gatewayError(err: unknown): Error {
  const e = err as { errno?: unknown; code?: unknown; sqlState?: unknown; message?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(err);
  const code = mappedCode(
    typeof e.errno === 'number' ? e.errno : undefined,
    typeof e.code === 'string' ? e.code : '',
    typeof e.sqlState === 'string' ? e.sqlState : '',
  );
  if (code === undefined) return err instanceof Error ? err : new Error(message);
  return Object.assign(new Error(message), { code });
}

function mappedCode(errno: number | undefined, code: string, sqlState: string): string | undefined {
  // 1969 MariaDB's max_statement_time, 3024 MySQL's max_execution_time, 1317 KILL QUERY
  if (errno === 1969 || errno === 3024 || errno === 1317) return '57014';
  if (errno === 1045 || errno === 1044) return '28P01';
  if (errno === 1040 || errno === 1203) return '53300';
  if (code === 'PROTOCOL_CONNECTION_LOST' || code === 'PROTOCOL_SEQUENCE_TIMEOUT')
    return 'ECONNRESET';
  if (/^(ECONN|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH)/.test(code)) return code;
  if (sqlState.startsWith('22')) return sqlState;
  return undefined;
}
