import type { HttpClient, HttpResponse } from './http';

/** An initialised MCP (streamable HTTP) session: the headers every later POST carries. */
export interface McpSession {
  headers: Record<string, string>;
  /** the JSON-RPC `tools/list` request body the load sends; its id is `[<id>]`, filled in
   * with a unique number per request (LoadSpec.uniqueIds), as a client would */
  listRequest: string;
  /** one `tools/list` response as the gateway sent it */
  listResponse: HttpResponse;
  /** how many tools the list holds */
  tools: number;
}

const PROTOCOL_VERSION = '2025-06-18';

/** A JSON-RPC message from a JSON body or from the first `data:` line of an SSE body. */
function message(res: HttpResponse): {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: unknown;
} {
  const type = String(res.headers['content-type'] ?? '');
  const text = type.includes('text/event-stream')
    ? (res.body
        .split('\n')
        .find((l) => l.startsWith('data:'))
        ?.slice(5) ?? '')
    : res.body;
  return JSON.parse(text) as { id?: unknown; result?: Record<string, unknown>; error?: unknown };
}

/**
 * initialize -> notifications/initialized -> one tools/list, as an MCP client does.
 * Resolves to undefined when the gateway has no /mcp endpoint (404).
 */
export async function openMcpSession(
  client: HttpClient,
  auth: Record<string, string>,
): Promise<McpSession | undefined> {
  const headers: Record<string, string> = {
    ...auth,
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
  };
  const init = await client.request('/mcp', {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'gateway-bench', version: '1.0.0' },
      },
    }),
  });
  if (init.status === 404) return undefined;
  if (init.status !== 200) throw new Error(`MCP initialize: HTTP ${init.status}: ${init.body}`);
  const initialized = message(init);
  if (!initialized.result) throw new Error(`MCP initialize failed: ${init.body}`);
  const session = init.headers['mcp-session-id'];
  if (typeof session === 'string') headers['mcp-session-id'] = session;
  const version = initialized.result.protocolVersion;
  headers['mcp-protocol-version'] = typeof version === 'string' ? version : PROTOCOL_VERSION;

  const notified = await client.request('/mcp', {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  if (notified.status !== 202 && notified.status !== 200)
    throw new Error(`MCP notifications/initialized: HTTP ${notified.status}: ${notified.body}`);

  // The id is a number; `[<id>]` stands for it (LoadSpec.uniqueIds fills it in).
  const listRequest = '{"jsonrpc":"2.0","id":[<id>],"method":"tools/list","params":{}}';
  const probe = listRequest.replace('[<id>]', '1');
  const listResponse = await client.ok('/mcp', { method: 'POST', headers, body: probe });
  const listed = message(listResponse);
  const tools = listed.result?.tools;
  if (!Array.isArray(tools))
    throw new Error(`MCP tools/list returned no tools: ${listResponse.body}`);
  if (listed.id !== 1)
    throw new Error(
      `MCP tools/list answered another request id: ${listResponse.body.slice(0, 200)}`,
    );
  return { headers, listRequest, listResponse, tools: tools.length };
}
