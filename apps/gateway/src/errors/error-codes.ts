import type { MetaToolErrorCode } from '@app/meta-tool';
import type { RegistryErrorCode, ToolErrorCode } from '@app/registry';
import type { SelectionErrorCode } from '@app/selection';
import type { TemplateErrorCode } from '@app/templates';

/** Codes the gateway app raises itself (libraries raise their own, listed by type below). */
export type GatewayErrorCode =
  | 'UNAUTHENTICATED'
  | 'RATE_LIMITED'
  | 'SHUTTING_DOWN'
  | 'INTERNAL'
  | 'NOT_FOUND'
  | 'CONSOLE_NOT_BUILT'
  | 'HTTP_400'
  | 'HTTP_404'
  | 'HTTP_413'
  | 'ORIGIN_NOT_ALLOWED'
  | 'SESSION_FORBIDDEN'
  | 'SESSION_NOT_FOUND'
  | 'NO_SESSION'
  | 'INVALID_MESSAGE'
  | 'EMPTY_MESSAGE'
  | 'INVALID_PARAMS';

/** Every code a client can meet, from every library and the app: the mapping must name each. */
export type ErrorCode =
  | GatewayErrorCode
  | RegistryErrorCode
  | MetaToolErrorCode
  | SelectionErrorCode
  | TemplateErrorCode
  | ToolErrorCode
  | 'TOOL_NOT_FOUND';

/** JSON-RPC 2.0 error codes used on /mcp. */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  invalidParams: -32602,
  internalError: -32603,
  /** implementation-defined: not authenticated / not allowed */
  unauthorized: -32000,
  /** implementation-defined: the session is gone */
  sessionNotFound: -32001,
} as const;

export interface ErrorSpec {
  /** the HTTP status of a request refused with this code; 200 for tool outcomes (`is_error`) */
  http: number;
  /** the JSON-RPC error code on /mcp; null for codes that only occur as tool outcomes */
  jsonRpc: number | null;
  /** whether a tool call's outcome can carry this code (`is_error: true`; MCP `isError`) */
  outcome: boolean;
  /** when a client meets it (the docs' error table is checked against these) */
  when: string;
}

const refusal = (http: number, jsonRpc: number, when: string): ErrorSpec => ({
  http,
  jsonRpc,
  outcome: false,
  when,
});
const outcome = (when: string): ErrorSpec => ({ http: 200, jsonRpc: null, outcome: true, when });

/** The one list of codes and what each becomes on every transport. */
export const ERRORS: Readonly<Record<ErrorCode, ErrorSpec>> = {
  UNAUTHENTICATED: refusal(401, RPC.unauthorized, 'no, invalid or expired bearer token'),
  TENANT_NOT_FOUND: refusal(401, RPC.unauthorized, "the token's tenant does not exist"),
  FORBIDDEN: refusal(403, RPC.unauthorized, 'the caller lacks the role the route needs'),
  UNKNOWN_CONTEXT: refusal(
    400,
    RPC.invalidParams,
    'an unknown business context; the message lists the valid ones',
  ),
  TOOL_NOT_FOUND: {
    ...refusal(404, RPC.invalidParams, 'no such tool, or one the caller may not use (the same)'),
    outcome: true,
  },
  REPORT_NOT_FOUND: refusal(404, RPC.invalidRequest, 'admin API: no such report in the tenant'),
  INVALID_REPORT: refusal(422, RPC.invalidRequest, 'admin API: the report document is rejected'),
  REPORT_CHANGED: refusal(
    409,
    RPC.invalidRequest,
    'admin API: the report kept changing under a PATCH (other writers); send it again',
  ),
  INVALID_TEMPLATE: refusal(422, RPC.invalidRequest, 'a SQL template the SQL guard refuses'),
  DATABASE_UNAVAILABLE: refusal(503, RPC.internalError, 'Postgres cannot be reached'),
  DATASOURCE_NOT_FOUND: refusal(
    404,
    RPC.invalidRequest,
    'admin API: no such data source in the tenant',
  ),
  INVALID_DATASOURCE: refusal(
    422,
    RPC.invalidRequest,
    'admin API: a data source refused (bad document, unreachable, a login that can write, a missing table)',
  ),
  DATASOURCE_IN_USE: refusal(409, RPC.invalidRequest, 'admin API: a data source reports still use'),
  PROPOSAL_NOT_FOUND: refusal(404, RPC.invalidRequest, 'meta_tool review: no such proposal'),
  PROPOSAL_NOT_PENDING: refusal(409, RPC.invalidRequest, 'meta_tool review: already decided'),
  GENERATED_TOOL_NOT_FOUND: refusal(404, RPC.invalidRequest, 'no such generated tool'),
  REFUSED: {
    ...refusal(422, RPC.invalidRequest, 'meta_tool refuses a proposal or a decision'),
    outcome: true,
  },
  INVALID_SELECT_REQUEST: refusal(400, RPC.invalidRequest, 'POST /v1/tools/select: a bad body'),
  WORD_VECTORS_INVALID: refusal(
    500,
    RPC.internalError,
    'the shipped word-vector table is corrupt (start-up stops; rebuild it)',
  ),
  RATE_LIMITED: refusal(
    429,
    RPC.invalidRequest,
    'a rate or concurrency limit; Retry-After says when (an MCP tools/call: an isError result)',
  ),
  SHUTTING_DOWN: refusal(503, RPC.internalError, 'the instance is draining; retry elsewhere'),
  INTERNAL: refusal(500, RPC.internalError, 'a fault the gateway did not expect (logged)'),
  NOT_FOUND: refusal(404, RPC.invalidRequest, 'no such console file'),
  CONSOLE_NOT_BUILT: refusal(503, RPC.internalError, 'the admin console is not built'),
  HTTP_400: refusal(400, RPC.invalidRequest, 'a malformed request (query, body, JSON)'),
  HTTP_404: refusal(404, RPC.invalidRequest, 'no such route (/metrics when METRICS_PORT is set)'),
  HTTP_413: refusal(413, RPC.invalidRequest, 'a body over LIMIT_BODY_BYTES'),
  ORIGIN_NOT_ALLOWED: refusal(403, RPC.invalidRequest, '/mcp: an Origin not allowed'),
  SESSION_FORBIDDEN: refusal(403, RPC.invalidRequest, "/mcp: another user's session"),
  SESSION_NOT_FOUND: refusal(404, RPC.sessionNotFound, '/mcp: the session is gone'),
  NO_SESSION: refusal(400, RPC.unauthorized, '/mcp: a request before initialize'),
  INVALID_MESSAGE: refusal(400, RPC.invalidRequest, '/mcp: the body is not JSON-RPC 2.0'),
  EMPTY_MESSAGE: refusal(400, RPC.parseError, '/mcp: a POST with no body'),
  INVALID_PARAMS: refusal(200, RPC.invalidParams, '/mcp: malformed tools/call params'),
  INVALID_ARGUMENTS: outcome("the arguments fail the tool's schema"),
  TIMEOUT: outcome('the query ran past the statement timeout'),
  RESULT_TOO_LARGE: outcome('one page is over the byte cap'),
  QUERY_FAILED: outcome('the database refused a value, or the report is broken (logged)'),
  DATA_UNAVAILABLE: outcome('the database is unreachable during a call'),
  DATASOURCE_UNAVAILABLE: outcome(
    "the report's data source is down, slow to connect or its breaker open (only its tenant's calls)",
  ),
  BUSY: outcome('no sandbox was free within META_TOOL_QUEUE_WAIT_MS'),
  TOOL_FAILED: outcome('a generated tool threw or broke its contract'),
};

export function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERRORS, code);
}

/** The spec of a code; `HTTP_<status>` codes Nest or Fastify raise are derived from the status. */
export function specOf(code: string, status = 500): ErrorSpec {
  if (isErrorCode(code)) return ERRORS[code];
  const rpc =
    status >= 500
      ? RPC.internalError
      : status === 401 || status === 403
        ? RPC.unauthorized
        : RPC.invalidRequest;
  return refusal(status, rpc, 'an HTTP error raised by the framework');
}
