import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerChallenge, publicBaseUrl } from '../auth/resource-metadata';
import { AuthError } from '../auth/token-verifier';
import type { GatewayConfig } from '../config/gateway.config';
import { httpErrorOf, jsonRpcErrorOf } from '../errors';
import type { RequestPipeline } from '../pipeline/request-pipeline';
import { splitUrl } from './hot-path';

/**
 * Routes that take a body from a caller without a token, each with the most it may send.
 * `POST /register` answers MCP clients' OAuth registration attempts with a message (and
 * reads nothing of the body): a client's metadata is well under this.
 */
const PUBLIC_BODY_BYTES: ReadonlyMap<string, number> = new Map([['/register', 16 * 1024]]);

/** Whether the request announces a body (a length above 0, or a chunked/encoded one). */
export function carriesBody(request: IncomingMessage): boolean {
  const { headers } = request;
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * Authentication before any body byte is read, on every lane: a request that carries a body
 * waits here (its bytes stay in the socket, under Node's back-pressure) until its token is
 * verified. Without a valid token it gets the 401 every route gives, and its connection is
 * closed, so a caller without a token cannot make the gateway hold megabytes or wait for a
 * slow body. The routes and the fast lanes check the token again (from the verifier's cache).
 */
export class BodyGate {
  constructor(
    private readonly pipeline: RequestPipeline,
    private readonly config: GatewayConfig,
  ) {}

  /** Calls `next` once the request may be read; otherwise answers it and closes. */
  admit(request: IncomingMessage, response: ServerResponse, next: () => void): void {
    if (!carriesBody(request)) return next();
    const { pathname } = splitUrl(request.url ?? '');
    const publicLimit = PUBLIC_BODY_BYTES.get(pathname);
    if (publicLimit !== undefined) {
      const length = Number(request.headers['content-length']);
      if (Number.isInteger(length) && length <= publicLimit) return next();
      return this.refuse(request, response, 413, {
        error: {
          code: 'HTTP_413',
          message: `a body of at most ${publicLimit} bytes is accepted here`,
        },
      });
    }
    const authorization = request.headers.authorization;
    if (this.pipeline.cachedPrincipal(authorization)) return next();
    this.pipeline.authenticate(authorization).then(
      () => this.pipeline.reenter(request, next),
      (err: unknown) => {
        // a verifier that could not answer (a JWKS outage) is the route's to report
        if (!(err instanceof AuthError)) return this.pipeline.reenter(request, next);
        this.refuseUnauthenticated(request, response, err);
      },
    );
  }

  private refuseUnauthenticated(
    request: IncomingMessage,
    response: ServerResponse,
    err: AuthError,
  ): void {
    const answer = httpErrorOf(err);
    const ctx = this.pipeline.contextOf(request);
    if (ctx) {
      ctx.outcome = answer.body.error.code;
      answer.body.trace_id = ctx.traceId;
    }
    const mcp = /^\/mcp(?:[/?]|$)/.test(request.url ?? '');
    const payload = mcp
      ? { jsonrpc: '2.0', error: jsonRpcErrorOf(err, answer), id: null }
      : answer.body;
    response.setHeader(
      'www-authenticate',
      bearerChallenge(err, publicBaseUrl(this.config, request.socket)),
    );
    this.refuse(request, response, answer.status, payload);
  }

  /** Answers, then closes the connection without reading what is left of the body. */
  private refuse(
    request: IncomingMessage,
    response: ServerResponse,
    status: number,
    payload: object,
  ): void {
    const body = JSON.stringify(payload);
    response.shouldKeepAlive = false;
    response.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    response.end(body, () => request.socket.destroy());
  }
}
