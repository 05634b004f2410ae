/** Raw MCP 2026-07-28 (stateless) over HTTP, for tests that speak it without an SDK client. */
export const MODERN = '2026-07-28';

export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw-modern-test', version: '1' },
};

export interface ModernAnswer {
  status: number;
  headers: Headers;
  body: {
    jsonrpc: string;
    id: unknown;
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: unknown };
  };
}

/**
 * One modern request with the standard headers a conforming client sends (MCP-Protocol-Version,
 * Mcp-Method, Mcp-Name for tools/call); `headers` overrides or removes (`undefined`) them.
 */
export async function modernPost(
  url: string,
  token: string,
  method: string,
  params: Record<string, unknown> = { _meta: MODERN_META },
  options: { id?: string | number; headers?: Record<string, string | undefined> } = {},
): Promise<ModernAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: modernHeaders(token, method, params, options.headers),
    body: JSON.stringify({ jsonrpc: '2.0', id: options.id ?? 1, method, params }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

export function modernHeaders(
  token: string,
  method: string,
  params: Record<string, unknown>,
  overrides: Record<string, string | undefined> = {},
): Record<string, string> {
  const headers: Record<string, string | undefined> = {
    authorization: `Bearer ${token}`,
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
    ...(typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {}),
    ...overrides,
  };
  return Object.fromEntries(
    Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined),
  );
}

/** A subscriptions/listen stream: its frames as they arrive, and a way to end it. */
export interface ListenStream {
  status: number;
  /** the next JSON-RPC frame on the stream (SSE comments skipped) */
  next(): Promise<Record<string, unknown>>;
  /** every frame read so far */
  readonly frames: Array<Record<string, unknown>>;
  close(): void;
}

export async function openListen(
  url: string,
  token: string,
  notifications: Record<string, unknown>,
  id: string | number = 'listen-1',
  meta: Record<string, unknown> = MODERN_META,
): Promise<ListenStream> {
  const params = { _meta: meta, notifications };
  const controller = new AbortController();
  const res = await fetch(url, {
    method: 'POST',
    headers: modernHeaders(token, 'subscriptions/listen', params),
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params }),
    signal: controller.signal,
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const frames: Array<Record<string, unknown>> = [];
  let buffer = '';
  let read = 0;
  return {
    status: res.status,
    frames,
    async next() {
      for (;;) {
        if (read < frames.length) return frames[read++];
        const { value, done } = await reader.read();
        if (done) throw new Error('the listen stream ended');
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = event
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('\n');
          if (data) frames.push(JSON.parse(data) as Record<string, unknown>);
        }
      }
    },
    close: () => controller.abort(),
  };
}
