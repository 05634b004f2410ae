import type { TemplateProblem } from '@app/templates';

/** How a source's connection is encrypted: libpq's `sslmode` values that mean one thing here. */
export type SourceSslMode = 'disable' | 'require' | 'verify-ca' | 'verify-full';

/** The wire protocol a source speaks (issue #42): Postgres, or MySQL's (MariaDB, TiDB, ...). */
export type SourceEngine = 'postgres' | 'mysql';

/** URL schemes per engine, with each engine's default port; the first scheme is the shown one. */
export const ENGINE_SCHEMES: Readonly<Record<SourceEngine, { schemes: string[]; port: number }>> = {
  postgres: { schemes: ['postgres', 'postgresql'], port: 5432 },
  mysql: { schemes: ['mysql', 'mariadb'], port: 3306 },
};

/**
 * One server of a tenant's source, as the gateway parsed it from the admin's URL (issue #37).
 * The driver is built from these parts only: it never sees the URL, so no startup `options`,
 * no unix socket, no file path and no other free parameter can reach it.
 */
export interface SourceEndpoint {
  engine: SourceEngine;
  /** a DNS name or an IP literal (IPv6 without brackets); never a path */
  host: string;
  port: number;
  database: string;
  user: string;
  /** '' when the URL has none (never read from a password file) */
  password: string;
  sslmode: SourceSslMode;
}

const SSL_MODES: readonly SourceSslMode[] = ['disable', 'require', 'verify-ca', 'verify-full'];
/** a DNS name (RFC 1123 labels) or an IPv4 literal; IPv6 literals come in brackets */
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;
const IPV6_LITERAL = /^\[([0-9a-f:.]+)\]$/i;

const problem = (message: string): TemplateProblem => ({ rule: 'url', message });

const ALL_SCHEMES = Object.values(ENGINE_SCHEMES).flatMap((e) => e.schemes);

/**
 * Parses a tenant's `postgres://user:password@host:port/database?sslmode=...` (or `mysql://`,
 * issue #42) into its parts, or says what is wrong with it (never echoing the URL: it holds a
 * password). `sslmode` is the only query parameter, for either engine; any other one is refused
 * by name before any connection is tried.
 */
export function parseSourceUrl(
  text: string,
): { ok: true; endpoint: SourceEndpoint } | { ok: false; problem: TemplateProblem } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, problem: problem('a url is not a URL') };
  }
  const scheme = url.protocol.replace(/:$/, '');
  const engine = (Object.keys(ENGINE_SCHEMES) as SourceEngine[]).find((e) =>
    ENGINE_SCHEMES[e].schemes.includes(scheme),
  );
  if (engine === undefined)
    return {
      ok: false,
      problem: problem(`a url must start with ${ALL_SCHEMES.map((s) => `${s}://`).join(', ')}`),
    };
  const refused = [...url.searchParams.keys()].filter((k) => k !== 'sslmode');
  if (refused.length > 0)
    return {
      ok: false,
      problem: problem(
        `a url may carry no parameter but sslmode; refused: ${[...new Set(refused)].map((k) => JSON.stringify(k.slice(0, 40))).join(', ')} (a CA certificate goes in the document's ca_pem field)`,
      ),
    };
  if (url.searchParams.getAll('sslmode').length > 1)
    return { ok: false, problem: problem('a url gives sslmode more than once') };
  const sslmode = (url.searchParams.get('sslmode') ?? 'disable') as SourceSslMode;
  if (!SSL_MODES.includes(sslmode))
    return {
      ok: false,
      problem: problem(`sslmode must be one of ${SSL_MODES.join(', ')}`),
    };
  if (url.hash) return { ok: false, problem: problem('a url has no #fragment') };
  const host = hostOf(url.hostname);
  if (host === undefined)
    return {
      ok: false,
      problem: problem(
        'a url must name a network host (a DNS name or an IP address): unix sockets and paths are not accepted',
      ),
    };
  const database = decode(url.pathname.slice(1));
  const user = decode(url.username);
  const password = decode(url.password);
  if (database === undefined || user === undefined || password === undefined)
    return { ok: false, problem: problem('a url has a badly escaped part') };
  if (!user || !database || database.includes('/'))
    return {
      ok: false,
      problem: problem(
        `a url must name a host, a login and a database: ${scheme}://user:password@host:port/database`,
      ),
    };
  if ([user, password, database].some((part) => /[\0\r\n]/.test(part)))
    return { ok: false, problem: problem('a url holds a control character') };
  return {
    ok: true,
    endpoint: {
      engine,
      host,
      port: url.port ? Number(url.port) : ENGINE_SCHEMES[engine].port,
      database,
      user,
      password,
      sslmode,
    },
  };
}

/** The host as a DNS name or IP literal, or undefined when it is empty, a path or escaped. */
function hostOf(hostname: string): string | undefined {
  const v6 = IPV6_LITERAL.exec(hostname);
  if (v6) return v6[1].toLowerCase();
  if (!HOST_NAME.test(hostname)) return undefined;
  return hostname.toLowerCase();
}

function decode(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/** `host:port` for messages and the API (no login, no password). */
export function endpointLabel(e: Pick<SourceEndpoint, 'host' | 'port'>): string {
  return e.host.includes(':') ? `[${e.host}]:${e.port}` : `${e.host}:${e.port}`;
}
