import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Metrics } from '@app/registry';
import { DiscoveryService } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { errorBody, httpStatus, INTERNAL_MESSAGE } from '../errors/http-errors';
import type { RequestPipeline } from '../pipeline/request-pipeline';
import {
  frontReadable,
  installReplay,
  matchRoute,
  readFrontBody,
  readInFront,
  replayToFastify,
} from './front-body';
import type { FrontBody } from './front-body';
// Fastify's own query parser (via find-my-way): the front lane reads a query as the route would
import { parse as parseQuery } from 'fast-querystring';

/** What a hot path sees of a request. */
export interface HotRequest {
  headers: IncomingHttpHeaders;
  /** query parameters; a repeated one is an array */
  query: Record<string, unknown>;
  /** the parsed JSON body (POST paths only) */
  body?: unknown;
  /** route parameters, e.g. `name` of /v1/tools/:name/call (POST paths only) */
  params?: Record<string, string>;
}

/** A complete 200 response. */
export interface HotAnswer {
  headers: Record<string, string>;
  /** the body as UTF-8 bytes, in one or more pieces (sent as one) */
  body: readonly Buffer[];
  /**
   * What to record once the answer is sent (e.g. the list an MCP session has seen): `answer`
   * itself mutates nothing, so an answer that is not sent leaves no trace.
   */
  sent?: () => void;
}

/**
 * A request answered from memory before Nest's pipeline runs. `answer` gives the response
 * only when everything it needs is already in memory and checked; otherwise it returns
 * undefined, and the regular route answers, errors included.
 */
export interface HotPath {
  readonly method: 'GET' | 'POST';
  /** the route as registered, e.g. /v1/tools */
  readonly url: string;
  answer(request: HotRequest): HotAnswer | Promise<HotAnswer> | undefined;
}

/**
 * Marks a provider as a hot path: every provider so marked, in any module, is installed
 * (Nest's multi-provider pattern through DiscoveryService; no hand-written list).
 */
export const AsHotPath = DiscoveryService.createDecorator<void>();

/** The hot paths among the app's providers. */
export function discoverHotPaths(discovery: DiscoveryService): HotPath[] {
  return discovery
    .getProviders({ metadataKey: AsHotPath.KEY })
    .map((wrapper) => wrapper.instance as HotPath)
    .filter((path) => path !== undefined && path !== null);
}

interface Entry {
  path: HotPath;
  served: () => void;
}

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
  private posts: Entry[] = [];
  private pipeline?: RequestPipeline;

  /** `bodyLimit`: Fastify's, so the front reads no body the route would refuse as too large */
  constructor(private readonly bodyLimit: number) {}

  /**
   * FastifyAdapter's `serverFactory`: the HTTP server. Every request enters the request
   * pipeline first (trace id, access log, metrics), then the front lane, then Fastify.
   */
  readonly serverFactory = (
    handler: (request: IncomingMessage, response: ServerResponse) => void,
  ): Server =>
    createServer((request, response) => {
      const next = () => {
        if (!this.tryFront(request, response, handler)) handler(request, response);
      };
      if (this.pipeline) this.pipeline.run(request, response, next);
      else next();
    });

  /** Called once the app exists (the hot paths are its providers), before it listens. */
  install(
    fastify: FastifyInstance,
    paths: readonly HotPath[],
    metrics: Metrics,
    pipeline: RequestPipeline,
  ): void {
    this.pipeline = pipeline;
    pipeline.install(fastify);
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
    const hooked = entries.filter((e) => e.path.method !== 'GET');
    this.posts = hooked;
    installReplay(fastify);
    fastify.addHook('preHandler', (request, reply, done) => {
      // the front lane already tried this one (and replayed its body): once is enough
      if (readInFront(request.raw)) return done();
      const url = request.routeOptions.url;
      let entry: Entry | undefined;
      let answer: HotAnswer | Promise<HotAnswer> | undefined;
      // several lanes may share a route (POST /mcp: tools/list, tools/call); the first that
      // takes the request answers it
      for (const candidate of hooked) {
        if (candidate.path.url !== url || candidate.path.method !== request.method) continue;
        answer = tryAnswer(candidate.path, {
          headers: request.headers,
          query: request.query as Record<string, unknown>,
          body: request.body,
          params: request.params as Record<string, string>,
        });
        if (answer) {
          entry = candidate;
          break;
        }
      }
      if (!entry || !answer) return done();
      // a hot path that took the request answers it; a coded refusal (a limit) goes on to the
      // route, whose filter maps it like any other; any other failure is a plain 500, no stack
      void Promise.resolve(answer).then(
        (ready) => {
          reply.hijack();
          sendAnswer(reply.raw, entry, ready);
        },
        (err: unknown) => {
          if (typeof (err as { code?: unknown } | null)?.code === 'string') return done();
          reply.hijack();
          writeInternalError(reply.raw);
        },
      );
    });
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
      if (request.method === 'POST') return this.readPost(request, response, handler);
      return this.serveFront(request, response);
    } catch {
      const ctx = this.pipeline?.contextOf(request);
      if (ctx) ctx.fastLane = undefined;
      if (!response.headersSent) return false;
      response.destroy(); // half an answer went out: end the connection, never send two
      return true;
    }
  }

  /** Starts a POST lane: true when a POST hot path may take it (its body is being read). */
  private readPost(
    request: IncomingMessage,
    response: ServerResponse,
    handler: (request: IncomingMessage, response: ServerResponse) => void,
  ): boolean {
    if (this.posts.length === 0 || !frontReadable(request, this.bodyLimit)) return false;
    const url = request.url ?? '';
    const mark = url.indexOf('?');
    const pathname = mark < 0 ? url : url.slice(0, mark);
    if (!this.posts.some((e) => matchRoute(e.path.url, pathname))) return false;
    const pipeline = this.pipeline;
    void readFrontBody(request).then((body) => {
      const fallThrough = () => {
        replayToFastify(request, body.raw);
        handler(request, response);
      };
      // the body's events ran outside the request's async context: enter it again
      const go = () => this.answerPost(request, response, body, fallThrough);
      if (pipeline) pipeline.reenter(request, go);
      else go();
    });
    return true;
  }

  /** The first POST hot path that takes the request answers it; else Fastify does. */
  private answerPost(
    request: IncomingMessage,
    response: ServerResponse,
    body: FrontBody,
    fallThrough: () => void,
  ): void {
    if (body.value === undefined) return fallThrough(); // not JSON: Fastify's 400
    const url = request.url ?? '';
    const mark = url.indexOf('?');
    const pathname = mark < 0 ? url : url.slice(0, mark);
    const query = mark < 0 ? {} : (parseQuery(url.slice(mark + 1)) as Record<string, unknown>);
    for (const entry of this.posts) {
      const params = matchRoute(entry.path.url, pathname);
      if (!params) continue;
      const answer = tryAnswer(entry.path, {
        headers: request.headers,
        query,
        body: body.value,
        params,
      });
      if (!answer) continue;
      const ctx = this.pipeline?.contextOf(request);
      if (ctx) ctx.route = entry.path.url;
      return void Promise.resolve(answer).then(
        (ready) => sendAnswer(response, entry, ready),
        // a coded refusal (a limit) goes on to the route, whose filter maps it like any other
        (err: unknown) =>
          typeof (err as { code?: unknown } | null)?.code === 'string'
            ? fallThrough()
            : writeInternalError(response),
      );
    }
    fallThrough();
  }

  private serveFront(request: IncomingMessage, response: ServerResponse): boolean {
    if (request.method !== 'GET' || this.front.length === 0) return false;
    const url = request.url ?? '';
    const mark = url.indexOf('?');
    const pathname = mark < 0 ? url : url.slice(0, mark);
    const entry = this.front.find((e) => e.path.url === pathname);
    if (!entry) return false;
    const query = mark < 0 ? {} : (parseQuery(url.slice(mark + 1)) as Record<string, unknown>);
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

/** A fast lane that fails leaves the request to the regular route, which answers or refuses. */
function tryAnswer(path: HotPath, request: HotRequest): HotAnswer | Promise<HotAnswer> | undefined {
  try {
    return path.answer(request);
  } catch {
    return undefined;
  }
}

/** Sends a hot path's answer and records it; an answer that cannot be written is a plain 500. */
function sendAnswer(response: ServerResponse, entry: Entry, answer: HotAnswer): void {
  try {
    write(response, answer);
  } catch {
    return writeInternalError(response);
  }
  entry.served();
  answer.sent?.();
}

/** Headers and body in one write; nothing to serialise, rewrite or hook for a cached body. */
function write(response: ServerResponse, answer: HotAnswer): void {
  let length = 0;
  for (const piece of answer.body) length += piece.length;
  // everything that can throw before the response is touched, so a failure can fall through
  const headers = { ...answer.headers, 'content-length': length };
  response.cork();
  response.writeHead(200, headers);
  for (const piece of answer.body) response.write(piece);
  response.end();
  response.uncork();
}

function writeInternalError(response: ServerResponse): void {
  const body = JSON.stringify(errorBody('INTERNAL', INTERNAL_MESSAGE));
  if (response.headersSent) return void response.destroy();
  response.writeHead(httpStatus('INTERNAL'), {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}
