import { SERVER_INFO_META_KEY, SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { ServerResponse } from 'node:http';

/** A JSON-RPC id as a request carries it (null when it cannot be read). */
export type RpcId = string | number | null;

/** The stateless revisions served without a session (per-request `_meta`). */
export const MODERN_VERSIONS: readonly string[] = ['2026-07-28'];

/** Every revision /mcp serves: the modern ones, then the 2025-era ones sessions negotiate. */
export function supportedVersions(): string[] {
  return [...MODERN_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS];
}

/** Error codes revision 2026-07-28 defines (its reserved range -32020..-32099). */
export const MCP_CODES = {
  headerMismatch: -32020,
  missingRequiredClientCapability: -32021,
  unsupportedProtocolVersion: -32022,
  methodNotFound: -32601,
  invalidParams: -32602,
} as const;

export const SERVER_INFO = {
  name: 'report-tool-gateway',
  title: 'Report tool gateway',
  version: '0.1.0',
} as const;

/** The `_meta` every modern result carries: who answered (there is no handshake to say it). */
export const RESULT_META = { [SERVER_INFO_META_KEY]: SERVER_INFO } as const;

const RESULT_META_JSON = JSON.stringify(RESULT_META);

/** A modern result frame: `resultType` and the server's identity added to `result`. */
export function resultFrame(id: RpcId, result: Record<string, unknown>): string {
  const meta = (result._meta as Record<string, unknown> | undefined) ?? {};
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    result: { resultType: 'complete', ...result, _meta: { ...meta, ...RESULT_META } },
  });
}

/**
 * A tools/list frame around the cached list body (`{"tools":[...]}`) without parsing it: the
 * bytes the catalog already holds, with the caching hints and the server's identity.
 */
export function listFrame(id: RpcId, body: Buffer, ttlMs: number): Buffer[] {
  const tail =
    `,"ttlMs":${ttlMs},"cacheScope":"private","resultType":"complete",` +
    `"_meta":${RESULT_META_JSON}}}`;
  return [
    Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`),
    body.subarray(0, body.length - 1),
    Buffer.from(tail),
  ];
}

export function errorFrame(id: RpcId, code: number, message: string, data?: unknown): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: { code, message, ...(data === undefined ? {} : { data }) },
  });
}

/** A notification on a subscriptions/listen stream, tagged with the subscription's id. */
export function subscriptionFrame(
  subscriptionId: RpcId,
  method: string,
  params: Record<string, unknown> = {},
): string {
  return `data: ${JSON.stringify({
    jsonrpc: '2.0',
    method,
    params: { ...params, _meta: { [SUBSCRIPTION_ID_META_KEY]: subscriptionId } },
  })}\n\n`;
}

/** The graceful end of a subscription: the listen request's own response. */
export function subscriptionEndFrame(subscriptionId: RpcId): string {
  return `data: ${JSON.stringify({
    jsonrpc: '2.0',
    id: subscriptionId,
    result: {
      resultType: 'complete',
      _meta: { ...RESULT_META, [SUBSCRIPTION_ID_META_KEY]: subscriptionId },
    },
  })}\n\n`;
}

/** Writes a frame (or a list's chunks) as the whole JSON response, with its length. */
export function send(raw: ServerResponse, status: number, body: string | Buffer[]): void {
  const chunks = typeof body === 'string' ? [Buffer.from(body)] : body;
  const length = chunks.reduce((n, c) => n + c.length, 0);
  raw.writeHead(status, { 'content-type': 'application/json', 'content-length': length });
  for (const chunk of chunks) raw.write(chunk);
  raw.end();
}
