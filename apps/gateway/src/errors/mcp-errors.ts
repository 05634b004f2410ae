import { RegistryError } from '@app/registry';
import type { FastifyReply } from 'fastify';
import { LimitError } from '../pipeline/limits';
import { ERRORS, RPC } from './error-codes';
import type { ErrorCode, GatewayErrorCode } from './error-codes';
import { limitMessage } from './http-errors';

/**
 * A JSON-RPC error the MCP SDK sends as is. (The SDK's McpError puts "MCP error <code>: " into
 * its message, and clients add that prefix again when they read it.)
 */
export function rpcError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** An /mcp transport refusal written before the SDK sees the request: status and code by table. */
export async function refuseMcp(
  reply: FastifyReply,
  code: GatewayErrorCode,
  message: string,
  id: unknown = null,
): Promise<void> {
  const { http, jsonRpc } = ERRORS[code];
  await reply
    .status(http)
    .header('content-type', 'application/json')
    .send({ jsonrpc: '2.0', error: { code: jsonRpc, message }, id });
}

/** Registry refusals inside tools/call answered with their own JSON-RPC code (else internal). */
export const MCP_CALL_RPC: Readonly<Partial<Record<ErrorCode, number>>> = {
  TOOL_NOT_FOUND: ERRORS.TOOL_NOT_FOUND.jsonRpc ?? RPC.invalidParams,
};

/** A tools/call that threw: a tool result the model reads, or the JSON-RPC error to throw. */
export type McpCallFailure = { result: { isError: true; text: string } } | { error: Error };

export function mcpCallFailure(err: unknown): McpCallFailure {
  if (err instanceof LimitError) return { result: { isError: true, text: limitMessage(err) } };
  if (err instanceof RegistryError)
    return { error: rpcError(MCP_CALL_RPC[err.code] ?? RPC.internalError, err.message) };
  return { error: rpcError(RPC.internalError, 'internal error; the call was not completed') };
}
