/** Raw MCP over HTTP, for tests that speak the protocol without the SDK client. */
type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

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

/**
 * A fetch for the SDK's StreamableHTTPClientTransport that counts the notification streams
 * (GET /mcp answered 200) the client has opened. The SDK opens its first stream in the
 * background after `connect()` and never retries it if that first attempt fails, so a test
 * that moves or notifies the session must first wait for the stream it relies on.
 */
export function watchStreams(base: FetchLike = fetch): {
  fetch: FetchLike;
  opened: (count: number) => Promise<void>;
} {
  let count = 0;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  return {
    fetch: async (url, init) => {
      const res = await base(url, init);
      if ((init?.method ?? 'GET') === 'GET' && res.ok) {
        count += 1;
        for (const w of waiters.filter((w) => w.count <= count)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
      return res;
    },
    opened: (wanted) =>
      wanted <= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ count: wanted, resolve })),
  };
}
