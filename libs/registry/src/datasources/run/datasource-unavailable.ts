/**
 * A call's data source cannot be reached (down, slow to connect, lost mid-call, its breaker
 * open, or no connection left in this instance's budget). Becomes the tool outcome
 * DATASOURCE_UNAVAILABLE; the message names no host, port or login.
 */
export class DatasourceUnavailableError extends Error {
  readonly code = 'DATASOURCE_UNAVAILABLE';
  constructor(
    readonly source: string,
    readonly reason: string,
    readonly retryInMs = 0,
  ) {
    super(
      `the data source "${source}" is unavailable right now (${reason})${retryInMs > 0 ? `; try again in ${Math.ceil(retryInMs / 1000)} s` : '; try again later'}`,
    );
  }
}

/** Why a connection-level failure happened, in words that name no host; undefined: not one. */
export function connectionFailure(err: unknown): string | undefined {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (/timeout exceeded when trying to connect|connection timeout/i.test(message))
    return 'no connection within the connect timeout';
  if (/Query read timeout/.test(message)) return 'the server stopped answering';
  if (code === '28P01' || code === '28000') return 'the login was refused';
  if (code === '53300') return 'the server has no connection slot free';
  if (/^(08|57P)/.test(code) || code === 'ECONNRESET' || code === 'ETIMEDOUT' || code === 'EPIPE')
    return 'connection lost';
  if (
    /Connection terminated|terminated unexpectedly|Client has encountered a connection error/i.test(
      message,
    )
  )
    return 'connection lost';
  return undefined;
}
