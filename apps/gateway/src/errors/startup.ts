import { ConfigError } from '../config/gateway.config';

/**
 * The one line a failed start-up prints (`gateway failed to start: <line>`), classified by the
 * error's class and code, never by its message: a ConfigError names its setting; an error
 * with a code (a Postgres SQLSTATE, a Node errno) keeps it in front; a stack never shows.
 */
export function startupFailure(err: unknown): string {
  let text: string;
  if (err instanceof ConfigError) text = err.message;
  else if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const prefix = typeof code === 'string' && !err.message.includes(code) ? `${code}: ` : '';
    text = `${prefix}${err.message || err.name}`;
  } else text = String(err);
  // the first line names the cause; what follows (a stack, a hint list) stays out
  return text.trim().split('\n')[0].trim();
}
