import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Metrics } from '@app/registry';
import type { FastifyInstance } from 'fastify';
import type { LimitSettings } from '../config/serving.config';
import type { RequestPipeline } from '../pipeline/request-pipeline';
import type { BodyGate } from './body-gate';
import { ConnectionGuard } from './connection-guard';
import { splitUrl, tryAnswer, write } from './hot-path';
import type { Entry, HotPath } from './hot-path';
import { PostLanes } from './post-lanes';
// Fastify's own query parser (via find-my-way): the front lane reads a query as the route would
import { parse as parseQuery } from 'fast-querystring';

/**
 * Where hot paths run: in front of Fastify, in the HTTP server's request handler, with no
 * Fastify request/reply objects, routing or hooks. GET paths answer from memory. POST paths
 * read the JSON body first (Fastify's parser and limits) and may answer asynchronously; a
 * POST they do not answer goes to Fastify with its body replayed, as if it had never been
 * read. A POST whose body the front cannot read (chunked, compressed, over the limit) is
 * tried once more in a preHandler hook, after Fastify parsed it. A request no hot path
 * answers goes on to Fastify and Nest unchanged.
 */
export class HotPaths {
  private front: Entry[] = [];
  private posts = new PostLanes([], 0, undefined);
  private pipeline?: RequestPipeline;
  private gate?: BodyGate;
  /** counts a connection the guard closed (set once metrics exist) */
  private evicted?: (reason: 'connections' | 'unauthenticated') => void;
  private readonly bodyLimit: number;

  /** `limits.bodyBytes`: Fastify's, so the front reads no body the route would refuse */
  constructor(private readonly limits: LimitSettings) {
    this.bodyLimit = limits.bodyBytes;
  }

  /**
   * FastifyAdapter's `serverFactory`: the HTTP server, with the connection limits (docs/
   * operations.md). Every request enters the request pipeline first (trace id, access log,
   * metrics), then the body gate (a request with a body waits for its token's verdict),
   * then the front lane, then Fastify.
   */
  readonly serverFactory = (
    handler: (request: IncomingMessage, response: ServerResponse) => void,
  ): Server => {
    const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs } = this.limits;
    const guard = new ConnectionGuard(
      this.limits.maxConnections,
      this.limits.unauthenticatedConnections,
      (request) => this.pipeline?.contextOf(request)?.principal !== undefined,
      (reason) => this.evicted?.(reason),
    );
    const server = createServer(
      {
        requestTimeout: requestTimeoutMs,
        headersTimeout: Math.min(headersTimeoutMs, requestTimeoutMs),
        // how often Node looks for connections past those timeouts (its default is 30 s)
        connectionsCheckingInterval: Math.min(1000, headersTimeoutMs),
      },
      (request, response) => {
        guard.requestStarted(request, response);
        const next = () => {
          if (!this.tryFront(request, response, handler)) handler(request, response);
        };
        const gated = this.gate ? () => this.gate?.admit(request, response, next) : next;
        if (this.pipeline) this.pipeline.run(request, response, gated);
        else gated();
      },
    );
    server.keepAliveTimeout = keepAliveTimeoutMs;
    guard.attach(server);
    return server;
  };

  /** Called once the app exists (the hot paths are its providers), before it listens. */
  install(
    fastify: FastifyInstance,
    paths: readonly HotPath[],
    metrics: Metrics,
    pipeline: RequestPipeline,
    /** authentication before a body is read (the app always has one) */
    gate?: BodyGate,
  ): void {
    this.pipeline = pipeline;
    this.gate = gate;
    pipeline.install(fastify);
    metrics.describe(
      'gateway_connections_evicted_total',
      'connections closed while still sending a request head, to make room (by reason: the connection cap, the unauthenticated share)',
    );
    this.evicted = (reason) => metrics.inc('gateway_connections_evicted_total', { reason });
    metrics.describe(
      'gateway_hot_path_responses_total',
      'requests answered from memory before the regular route, by route',
    );
    const entries = paths.map((path) => ({
      path,
      served: metrics.counter('gateway_hot_path_responses_total', {
        route: `${path.method} ${path.url}`,
      }),
    }));
    this.front = entries.filter((e) => e.path.method === 'GET');
    const posts = entries.filter((e) => e.path.method !== 'GET');
    this.posts = new PostLanes(posts, this.bodyLimit, pipeline);
    this.posts.install(fastify);
  }

  /**
   * The front lane, fenced: any exception in it (an answer that cannot be written, a bug)
   * leaves the request to Fastify and the regular route, as if no hot path had matched.
   */
  private tryFront(
    request: IncomingMessage,
    response: ServerResponse,
    handler: (request: IncomingMessage, response: ServerResponse) => void,
  ): boolean {
    try {
      if (request.method === 'POST') return this.posts.take(request, response, handler);
      return this.serveFront(request, response);
    } catch {
      const ctx = this.pipeline?.contextOf(request);
      if (ctx) ctx.fastLane = undefined;
      if (!response.headersSent) return false;
      response.destroy(); // half an answer went out: end the connection, never send two
      return true;
    }
  }

  private serveFront(request: IncomingMessage, response: ServerResponse): boolean {
    if (request.method !== 'GET' || this.front.length === 0) return false;
    const { pathname, search } = splitUrl(request.url ?? '');
    const entry = this.front.find((e) => e.path.url === pathname);
    if (!entry) return false;
    const query = search === undefined ? {} : (parseQuery(search) as Record<string, unknown>);
    const answer = tryAnswer(entry.path, { headers: request.headers, query });
    // GET lanes answer from memory only: a pending answer is not theirs to give
    if (!answer || answer instanceof Promise) return false;
    const ctx = this.pipeline?.contextOf(request);
    if (ctx) ctx.route = entry.path.url;
    write(response, answer);
    entry.served();
    answer.sent?.();
    return true;
  }
}
