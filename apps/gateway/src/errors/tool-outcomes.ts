import { RegistryError, toolFailure } from '@app/registry';
import type { ToolErrorCode, ToolFailureOf } from '@app/registry';
import type { ErrorCode } from './error-codes';

/** Codes a tool call's own outcome carries (`is_error: true`). */
export type OutcomeCode = ToolErrorCode | 'TOOL_NOT_FOUND';

export type ToolErrorOutcome<C extends OutcomeCode = OutcomeCode> = ToolFailureOf<C>;

/** A tool call that ended in an error the model can act on (HTTP 200, MCP isError). */
export function toolError<C extends OutcomeCode>(
  tool: string,
  code: C,
  message: string,
): ToolErrorOutcome<C> {
  return toolFailure(tool, code, message);
}

/**
 * Refusals that, inside a batch of calls (`POST /v1/tool-calls`), end only their own call:
 * the outcome code each becomes. Any other error fails the whole request.
 */
export const BATCH_OUTCOMES: Readonly<Partial<Record<ErrorCode, OutcomeCode>>> = {
  TOOL_NOT_FOUND: 'TOOL_NOT_FOUND',
  DATABASE_UNAVAILABLE: 'DATA_UNAVAILABLE',
};

/** One call's outcome for a thrown error, or undefined when the error fails the batch. */
export function batchOutcomeOf(tool: string, err: unknown): ToolErrorOutcome | undefined {
  if (!(err instanceof RegistryError)) return undefined;
  const code = BATCH_OUTCOMES[err.code];
  return code === undefined ? undefined : toolError(tool, code, err.message);
}
