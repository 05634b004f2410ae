import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { noop } from './mcp-session';
import { releaseAnsweredJson } from '../shared/sdk-json-mappings';

/**
 * The SDK has no public way to resume a session id: replays the client's initialize (same
 * id, same protocol version) into the transport; its answer goes nowhere.
 */
export async function replayInitialize(
  transport: StreamableHTTPServerTransport,
  protocolVersion: string,
): Promise<void> {
  const web = (transport as unknown as { _webStandardTransport?: unknown })
    ._webStandardTransport as WebStandardStreamableHTTPServerTransport | undefined;
  if (!web || typeof web.handleRequest !== 'function') {
    throw new Error('this MCP SDK version cannot resume sessions (no web transport)');
  }
  const initialize = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: 'resumed-session', version: '0' },
    },
  };
  const response = await web.handleRequest(
    new Request('http://gateway.invalid/mcp', {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
      },
      body: JSON.stringify(initialize),
    }),
    { parsedBody: initialize },
  );
  await response.body?.cancel().catch(noop);
  releaseAnsweredJson(transport);
}
