import { classifyInboundRequest } from '@modelcontextprotocol/server';
import type { JSONRPCRequest } from '@modelcontextprotocol/server';
import type { IncomingHttpHeaders } from 'node:http';
import { MCP_CODES, MODERN_VERSIONS, supportedVersions } from '../shared/mcp-wire';
import type { RpcId } from '../shared/mcp-wire';

export type { RpcId } from '../shared/mcp-wire';

/** Which revision serves a POST/GET/DELETE on /mcp, or why it is refused before any handler. */
export type McpEra =
  | { kind: 'legacy' }
  | { kind: 'modern'; request: JSONRPCRequest }
  /** a modern notification: none is defined over HTTP, so it is accepted (202) and dropped */
  | { kind: 'modern-notification' }
  | {
      kind: 'reject';
      status: number;
      code: number;
      message: string;
      data?: unknown;
      id: RpcId;
    };

/**
 * The era of one request to /mcp and the transport-level checks of revision 2026-07-28.
 *
 * The SDK v2 classifier decides the era from the body (a per-request `_meta` envelope claim is
 * modern; `initialize`, no claim, GET/DELETE are 2025 traffic) and checks the envelope
 * (-32602), the protocol version header against the body and `Mcp-Method` against the method
 * (-32020). It lets through what this gateway refuses itself: a revision it does not serve
 * (-32022 listing the ones it does), a missing `Mcp-Method` and a missing or different
 * `Mcp-Name` on tools/call and tasks/* (-32020, after decoding the `=?base64?...?=` form). Every refusal
 * carries the request's id when the body has one.
 */
export function mcpEra(httpMethod: string, headers: IncomingHttpHeaders, body: unknown): McpEra {
  const outcome = classifyInboundRequest({
    httpMethod,
    protocolVersionHeader: header(headers, 'mcp-protocol-version'),
    mcpMethodHeader: header(headers, 'mcp-method'),
    mcpNameHeader: header(headers, 'mcp-name'),
    body,
  });
  const id = requestIdOf(body);
  switch (outcome.kind) {
    case 'legacy':
      return { kind: 'legacy' };
    case 'reject':
      return {
        kind: 'reject',
        status: outcome.httpStatus,
        code: outcome.code,
        message: outcome.message,
        data: outcome.data,
        id,
      };
    case 'modern':
      break;
  }
  const revision = outcome.classification.revision ?? '';
  if (!MODERN_VERSIONS.includes(revision)) {
    return {
      kind: 'reject',
      status: 400,
      code: MCP_CODES.unsupportedProtocolVersion,
      message: `Unsupported protocol version ${revision}`,
      data: { supported: supportedVersions(), requested: revision },
      id,
    };
  }
  if (outcome.messageKind === 'notification') return { kind: 'modern-notification' };
  const request = outcome.message;
  const mismatch = standardHeaderMismatch(headers, request);
  if (mismatch !== undefined)
    return { kind: 'reject', status: 400, code: MCP_CODES.headerMismatch, message: mismatch, id };
  return { kind: 'modern', request };
}

/**
 * The param `Mcp-Name` mirrors, per method: the tool of a call, the task of a tasks/* request
 * (the Tasks extension has clients send it, so a balancer can route on the task).
 */
const NAMED_BY: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** Why the Mcp-Method / Mcp-Name headers do not stand for this body, or undefined. */
function standardHeaderMismatch(
  headers: IncomingHttpHeaders,
  request: JSONRPCRequest,
): string | undefined {
  const method = header(headers, 'mcp-method');
  if (method === undefined) return 'Header mismatch: the Mcp-Method header is missing';
  if (method !== request.method)
    return `Header mismatch: Mcp-Method header value '${method}' does not match body method '${request.method}'`;
  const named = NAMED_BY[request.method];
  if (named === undefined) return undefined;
  const bodyName = (request.params as Record<string, unknown> | undefined)?.[named];
  if (typeof bodyName !== 'string') return undefined; // a params error, answered by the handler
  const raw = header(headers, 'mcp-name');
  if (raw === undefined) return 'Header mismatch: the Mcp-Name header is missing';
  const name = decodedHeaderValue(raw);
  if (name !== bodyName)
    return `Header mismatch: Mcp-Name header value '${raw}' does not match body value '${bodyName}'`;
  return undefined;
}

/** A header value with the `=?base64?<b64>?=` sentinel decoded (undefined when it is malformed). */
export function decodedHeaderValue(value: string): string | undefined {
  const sentinel = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value);
  if (!sentinel) return value.startsWith('=?base64?') ? undefined : value;
  return Buffer.from(sentinel[1], 'base64').toString('utf8');
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  const one = Array.isArray(value) ? value[0] : value;
  return one === undefined ? undefined : one.trim();
}

/** The id of a JSON-RPC request body, for error answers; null when there is none to read. */
export function requestIdOf(body: unknown): RpcId {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}
