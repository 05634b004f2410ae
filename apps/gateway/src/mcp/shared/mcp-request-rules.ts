/** A JSON-RPC request whose params the tools/call schema cannot accept: answered with -32602. */
export function invalidToolCallParams(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const message = body as { method?: unknown; params?: unknown };
  if (message.method !== 'tools/call') return undefined;
  const params = message.params;
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    return 'Invalid params: tools/call needs params {"name": "<tool>", "arguments": {...}}';
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string' || name === '')
    return 'Invalid params: tools/call needs params.name, the tool to call';
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
    return 'Invalid params: tools/call params.arguments must be an object';
  return undefined;
}

/** Whether a body is a JSON-RPC 2.0 message (or a batch of them) at all. */
export function isJsonRpcMessage(body: unknown): boolean {
  const one = (m: unknown) =>
    typeof m === 'object' &&
    m !== null &&
    (m as { jsonrpc?: unknown }).jsonrpc === '2.0' &&
    (typeof (m as { method?: unknown }).method === 'string' || 'result' in m || 'error' in m);
  return Array.isArray(body) ? body.length > 0 && body.every(one) : one(body);
}
