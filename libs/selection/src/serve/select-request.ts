import { isToolFormat, TOOL_FORMATS } from '@app/templates';
import type { ToolFormat } from '@app/templates';
import { SelectionError } from '../errors';

export const SELECT_LIMIT_DEFAULT = 5;
export const SELECT_LIMIT_MAX = 50;

export interface SelectRequest {
  messages: unknown;
  limit?: number;
  context?: string;
  format?: ToolFormat;
}

const SELECT_KEYS = new Set(['messages', 'limit', 'context', 'format']);

/** The request body of POST /v1/tools/select, or a coded refusal naming the field. */
export function parseSelectRequest(body: unknown): SelectRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new SelectionError('INVALID_SELECT_REQUEST', 'the body must be a JSON object');
  const input = body as Record<string, unknown>;
  const extra = Object.keys(input).filter((k) => !SELECT_KEYS.has(k));
  if (extra.length > 0)
    throw new SelectionError(
      'INVALID_SELECT_REQUEST',
      `unknown field(s) ${extra.join(', ')}; allowed: messages, limit, context, format`,
    );
  const { limit, context, format } = input;
  if (
    limit !== undefined &&
    (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > SELECT_LIMIT_MAX)
  )
    throw new SelectionError(
      'INVALID_SELECT_REQUEST',
      `limit must be an integer from 1 to ${SELECT_LIMIT_MAX}; got ${JSON.stringify(limit)}`,
    );
  if (context !== undefined && (typeof context !== 'string' || context === ''))
    throw new SelectionError('INVALID_SELECT_REQUEST', 'context must be a non-empty string');
  if (format !== undefined && (typeof format !== 'string' || !isToolFormat(format)))
    throw new SelectionError(
      'INVALID_SELECT_REQUEST',
      `format must be one of ${TOOL_FORMATS.join(', ')}; got ${JSON.stringify(format)}`,
    );
  return {
    messages: input.messages,
    limit: limit as number | undefined,
    context: context as string | undefined,
    format: format as ToolFormat | undefined,
  };
}
