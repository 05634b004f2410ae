/** Socket errors of a connection that could not be made or was lost. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** pg-pool and pg's own words for a connection that never came or went away. */
const DRIVER_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed/i;

/**
 * Whether an error escaped because the database (or Redis) could not be reached, rather
 * than because of the request or a bug: socket errors, SQLSTATE class 08 (connection
 * exception) and 57P01-57P03 (the server shutting down or not yet accepting), and the
 * driver's messages for a lost connection. Such a request deserves a 503 that says "try
 * again", not a 500.
 */
export function isBackendUnreachable(err: unknown): boolean {
  // duck-typed: socket errors may come from another realm than this module's Error
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || /^(08|57P0[123])/.test(code)))
    return true;
  if (typeof message === 'string' && DRIVER_MESSAGES.test(message)) return true;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err && isBackendUnreachable(cause);
}
