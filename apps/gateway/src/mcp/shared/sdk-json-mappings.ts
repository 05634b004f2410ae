import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

interface WebTransportInternals {
  _streamMapping?: Map<string, { resolveJson?: unknown }>;
  _requestToStreamMapping?: Map<unknown, string>;
}

/**
 * The MCP SDK (1.x, 1.32.2 included) keeps one `_streamMapping` entry per POST it answered in
 * JSON-response mode: `send()` resolves the pending response but never runs the entry's
 * cleanup (modelcontextprotocol/typescript-sdk#2559, open). Each entry holds the answer's
 * Response (a whole tools/list: ~24 KB here) and the request, for as long as the session
 * lives, so a long-lived MCP client grew its replica's heap with every request (the soak
 * found it: bench/SOAK.md). After each request, drops the entries of answered JSON responses:
 * those no pending request id points to. Returns how many; 0 if the SDK's shape changed (a
 * test pins the shape: mcp-sdk-json-mappings.integration-spec.ts).
 */
export function releaseAnsweredJson(transport: StreamableHTTPServerTransport): number {
  const web = (transport as unknown as { _webStandardTransport?: WebTransportInternals })
    ._webStandardTransport;
  const streams = web?._streamMapping;
  const pending = web?._requestToStreamMapping;
  if (!(streams instanceof Map) || !(pending instanceof Map) || streams.size === 0) return 0;
  const inFlight = new Set(pending.values());
  let released = 0;
  for (const [id, stream] of streams) {
    if (stream.resolveJson !== undefined && !inFlight.has(id)) {
      streams.delete(id);
      released += 1;
    }
  }
  return released;
}
