import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
// Fastify's own query parser (via find-my-way): the front lane reads a query as the route would
import { parse as parseQuery } from 'fast-querystring';
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
import { sendAnswer, splitUrl, tryAnswer, writeInternalError } from './hot-path';
import type { Entry, HotAnswer } from './hot-path';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * The POST hot paths (REST and MCP calls, MCP lists). In front of Fastify they read the JSON
 * body themselves (Fastify's limit and parser) and may answer asynchronously; a POST none
 * answers goes to Fastify with its body replayed, as if it had never been read. A POST whose
 * body the front may not read (chunked, compressed, over the limit, another type) is tried
 * once in a preHandler hook instead, after Fastify parsed it.
 */
export class PostLanes {
  constructor(
    private readonly posts: readonly Entry[],
    private readonly bodyLimit: number,
    private readonly pipeline: RequestPipeline | undefined,
  ) {}

  /** Takes a POST a hot path may answer (true): its body is read, then answered or handed on. */
  take(request: IncomingMessage, response: ServerResponse, handler: Handler): boolean {
    if (this.posts.length === 0 || !frontReadable(request, this.bodyLimit)) return false;
    const { pathname } = splitUrl(request.url ?? '');
    if (!this.posts.some((e) => matchRoute(e.path.url, pathname))) return false;
    const pipeline = this.pipeline;
    void readFrontBody(request).then((body) => {
      const fallThrough = () => {
        replayToFastify(request, body.raw);
        handler(request, response);
      };
      // the body's events ran outside the request's async context: enter it again; an
      // exception here leaves the request to Fastify, as in the GET lane
      const go = () => {
        try {
          this.answerPost(request, response, body, fallThrough);
        } catch {
          if (!response.headersSent) fallThrough();
          else response.destroy();
        }
      };
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
    const { pathname, search } = splitUrl(request.url ?? '');
    const query = search === undefined ? {} : (parseQuery(search) as Record<string, unknown>);
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

  /** Fastify's side: the body replay, and the lanes for the POSTs the front could not read. */
  install(fastify: FastifyInstance): void {
    const hooked = this.posts;
    installReplay(fastify);
    fastify.addHook('preHandler', (request, reply, done) => {
      // the front already tried this one (and replayed its body): once is enough
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
}
