import type { IncomingHttpHeaders } from 'node:http';

/** What `requestedContext` reads of a request (a Fastify request or a fast lane's HotRequest). */
export interface ContextSource {
  headers: IncomingHttpHeaders;
  query: unknown;
}

/**
 * The business context a request names, for every route and fast lane (REST list, MCP
 * initialize, access explain): `?context=` first, then the `X-Business-Context` header; an
 * empty value is no context. A repeated `?context=` is named as given (`A,B`), so the
 * catalog refuses it as unknown rather than picking one.
 */
export function requestedContext(request: ContextSource): string | undefined {
  const query = request.query as { context?: unknown } | null | undefined;
  const named = query?.context;
  if (named !== undefined && named !== '') return String(named);
  const header = request.headers['x-business-context'];
  return typeof header === 'string' && header !== '' ? header : undefined;
}
