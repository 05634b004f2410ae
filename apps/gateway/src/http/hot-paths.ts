import type { Metrics } from '@app/registry';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * A request answered from memory before Nest's pipeline runs. `serve` answers (and returns
 * true) only when everything it needs is already in memory and checked; otherwise it returns
 * false without touching the reply, and the regular route answers, errors included.
 */
export interface HotPath {
  readonly method: 'GET' | 'POST';
  /** the route as registered, e.g. /v1/tools */
  readonly url: string;
  serve(request: FastifyRequest, reply: FastifyReply): boolean;
}

/**
 * Puts the hot paths in front of their routes with one preHandler hook (after routing and
 * body parsing, before the route handler, where Nest runs its guards, pipes and controller).
 * Call it before the app is initialised.
 */
export function installHotPaths(
  fastify: FastifyInstance,
  paths: readonly HotPath[],
  metrics: Metrics,
): void {
  metrics.describe(
    'gateway_hot_path_responses_total',
    'requests answered from memory before the regular route, by route',
  );
  const served = paths.map((p) =>
    metrics.counter('gateway_hot_path_responses_total', { route: `${p.method} ${p.url}` }),
  );
  fastify.addHook('preHandler', (request, reply, done) => {
    const url = request.routeOptions.url;
    for (let i = 0; i < paths.length; i++) {
      const path = paths[i];
      if (path.url === url && path.method === request.method && path.serve(request, reply)) {
        served[i]();
        return;
      }
    }
    done();
  });
}

/**
 * Writes a complete response straight to the socket (headers and body in one write), taking
 * the reply out of Fastify's hands: no serialisation, content-type rewriting or onSend
 * hooks, none of which a cached body needs.
 */
export function sendRaw(
  reply: FastifyReply,
  headers: Record<string, string>,
  body: string,
  byteLength = Buffer.byteLength(body),
): void {
  reply.hijack();
  reply.raw.writeHead(200, { ...headers, 'content-length': byteLength });
  reply.raw.end(body);
}

/** The business context a request names: ?context= first, then the X-Business-Context header. */
export function requestedContext(request: FastifyRequest): string | undefined {
  const query = request.query as { context?: unknown };
  // a repeated ?context= arrives as an array: named as given, it is refused as unknown
  if (query.context !== undefined && query.context !== '') return String(query.context);
  const header = request.headers['x-business-context'];
  return typeof header === 'string' && header !== '' ? header : undefined;
}
