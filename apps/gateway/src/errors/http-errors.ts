import { MetaToolError } from '@app/meta-tool';
import { RegistryError } from '@app/registry';
import { SelectionError } from '@app/selection';
import { TemplateError } from '@app/templates';
import { HttpException } from '@nestjs/common';
import { AuthError } from '../auth/token-verifier';
import { LimitError } from '../pipeline/limits';
import { ERRORS, RPC, specOf } from './error-codes';
import type { ErrorCode } from './error-codes';
import { GatewayError } from './gateway-error';
import { isBackendUnreachable } from './unreachable';

export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
  trace_id?: string;
}

export interface HttpError {
  status: number;
  body: ErrorBody;
  /** false: nothing recognised the exception (answered INTERNAL; the caller logs it) */
  known: boolean;
}

export const INTERNAL_MESSAGE = 'internal error; the request was not completed';

/** What a request cut off by a database or Redis outage is told (a 503 it may retry). */
export const UNREACHABLE_MESSAGE =
  'the database is unreachable right now; try again in a few seconds (a write that was cut off may or may not have been applied: read it back)';

/** The body of a refusal with `code` (for answers written without an exception). */
export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { error: { code, message } };
}

/** The HTTP status of a code. */
export function httpStatus(code: ErrorCode): number {
  return ERRORS[code].http;
}

/** What a limit refusal says, on every transport. */
export function limitMessage(err: LimitError): string {
  return `${err.message}. Nothing was run.`;
}

function coded(code: ErrorCode, message: string, details?: Record<string, unknown>): HttpError {
  const error = details ? { code, message, details } : { code, message };
  return { status: httpStatus(code), body: { error }, known: true };
}

/** The one mapping of thrown errors to HTTP answers. Anything unknown is a 500 saying nothing. */
export function httpErrorOf(exception: unknown): HttpError {
  if (exception instanceof LimitError)
    return coded(exception.code, limitMessage(exception), {
      limit: exception.limit,
      retry_after_seconds: exception.retryAfterSeconds,
    });
  if (exception instanceof RegistryError)
    return coded(exception.code, exception.message, exception.details);
  if (exception instanceof MetaToolError || exception instanceof SelectionError)
    return coded(exception.code, exception.message);
  if (exception instanceof GatewayError) return coded(exception.code, exception.message);
  if (exception instanceof AuthError) return coded('UNAUTHENTICATED', exception.message);
  if (exception instanceof TemplateError)
    return coded(exception.code, exception.message, { problems: exception.problems });
  if (exception instanceof HttpException) return frameworkError(exception);
  // a database or Redis outage, not a bug: a coded 503 the client may retry
  if (isBackendUnreachable(exception)) return coded('DATABASE_UNAVAILABLE', UNREACHABLE_MESSAGE);
  return { status: 500, body: errorBody('INTERNAL', INTERNAL_MESSAGE), known: false };
}

/** Nest's and Fastify's own HTTP errors keep their status, coded `HTTP_<status>`. */
function frameworkError(exception: HttpException): HttpError {
  const status = exception.getStatus();
  const response = exception.getResponse();
  const message =
    typeof response === 'string'
      ? response
      : ((response as { message?: unknown }).message ?? exception.message);
  const text = Array.isArray(message) ? message.join('; ') : String(message);
  return { status, body: { error: { code: `HTTP_${status}`, message: text } }, known: true };
}

/** A body the JSON parser refused (Fastify's content-type parser errors, or a SyntaxError). */
function isBodyParseError(exception: unknown): boolean {
  const code = (exception as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('FST_ERR_CTP_')) return true;
  if (exception instanceof SyntaxError) return true;
  const cause = exception instanceof HttpException ? exception.cause : undefined;
  return cause !== undefined && cause !== exception && isBodyParseError(cause);
}

export interface JsonRpcError {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** The JSON-RPC error object of an HTTP refusal on /mcp (before the SDK saw the message). */
export function jsonRpcErrorOf(exception: unknown, answer: HttpError): JsonRpcError {
  const { status, body } = answer;
  const { message, details } = body.error;
  const data = { status, code: body.error.code, ...(details ?? {}) };
  if (status === 400 && (isBodyParseError(exception) || /JSON|body/i.test(message)))
    return { code: RPC.parseError, message: `Parse error: ${message}`, data };
  return { code: specOf(body.error.code, status).jsonRpc ?? RPC.internalError, message, data };
}
