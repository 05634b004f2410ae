import type { GatewayErrorCode } from './error-codes';

/**
 * A refusal the gateway app raises itself (a malformed query, an /mcp transport rule). Its
 * code decides the HTTP status and the JSON-RPC error (`error-codes.ts`); nothing else does.
 */
export class GatewayError extends Error {
  constructor(
    readonly code: GatewayErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}
