/** Raw MCP over HTTP, for tests that speak the protocol without the SDK client. */
export const MCP_INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw-test', version: '1' },
  },
};

export const MCP_TOOLS_LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

/** Streamable HTTP requires clients to accept both JSON and an event stream. */
export const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };
