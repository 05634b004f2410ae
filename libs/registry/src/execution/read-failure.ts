import { randomUUID } from 'node:crypto';
import { ResultTooLargeError } from '@app/db';
import { DatasourceUnavailableError } from '../datasources/run/datasource-unavailable';
import { toolFailure } from './tool-outcome';
import type { ToolCallOutcome } from './tool-outcome';

const QUERY_CANCELED = '57014';

/** A page over the byte cap: measured (`atLeast` false) or stopped while it arrived (true). */
export function tooLarge(
  name: string,
  bytes: number,
  atLeast: boolean,
  maxBytes: number,
): ToolCallOutcome {
  return toolFailure(
    name,
    'RESULT_TOO_LARGE',
    `this page is ${atLeast ? 'more than ' : ''}${bytes} bytes, over the ${maxBytes}-byte limit; ask for a smaller page_size or narrow the filters`,
  );
}

/**
 * What the caller of a report is told when its read failed: the byte cap, the timeout, a value
 * the database refused, the database being away, or else a reference to a logged error (the
 * database's message may name internals, so only the log line carries it).
 */
export function readFailure(
  name: string,
  err: unknown,
  timeoutMs: number,
  logError: (line: string) => void,
): ToolCallOutcome {
  if (err instanceof ResultTooLargeError) return tooLarge(name, err.atLeastBytes, true, err.limit);
  if (err instanceof DatasourceUnavailableError)
    return toolFailure(name, 'DATASOURCE_UNAVAILABLE', err.message);
  const pgError = err as { code?: string; message?: string };
  const code = typeof pgError.code === 'string' ? pgError.code : '';
  const message = pgError.message ?? '';
  if (code === QUERY_CANCELED || /Query read timeout/.test(message))
    return toolFailure(
      name,
      'TIMEOUT',
      `the query took longer than ${timeoutMs / 1000} s and was stopped; narrow the filters (for example a shorter date range) and try again`,
    );
  if (code.startsWith('22'))
    return toolFailure(
      name,
      'QUERY_FAILED',
      `the database refused a value: ${pgError.message ?? 'invalid value'}; check the arguments`,
    );
  if (/^(08|57P)/.test(code) || /ECONNREFUSED|ECONNRESET|terminat|closed/i.test(message))
    return toolFailure(
      name,
      'DATA_UNAVAILABLE',
      'the report database is unavailable right now; try again later',
    );
  const reference = randomUUID();
  logError(`report ${name} failed (reference ${reference}): ${pgError.message ?? String(err)}`);
  return toolFailure(
    name,
    'QUERY_FAILED',
    `the report query failed; the report may be misconfigured, so tell an administrator (reference ${reference})`,
  );
}
