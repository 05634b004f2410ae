import type { Principal } from '@app/registry';
import { CatalogService } from '@app/registry';
import { All, Controller, Inject, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeEndpoint, ApiTags } from '@nestjs/swagger';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthGuard, CurrentPrincipal } from '../auth/auth.guard';
import { gatewayConfig } from '../config/gateway.config';
import { refuseMcp, RPC } from '../errors';
import { requestedContext } from '../pipeline/business-context';
import type { GatewayConfig } from '../config/gateway.config';
import { invalidToolCallParams, isJsonRpcMessage } from './shared/mcp-request-rules';
import { McpOrigins } from './shared/mcp-origin';
import { McpSessions, ownerOf, SessionOwnerError } from './session/mcp-sessions.service';
import { requestAuth } from './shared/mcp-server.factory';
import { releaseAnsweredJson } from './shared/sdk-json-mappings';
import { mcpEra, requestIdOf } from './stateless/mcp-era';
import { McpStateless } from './stateless/mcp-stateless.service';
import { errorFrame } from './shared/mcp-wire';
import { RequestPipeline } from '../pipeline/request-pipeline';
import type { JSONRPCRequest } from '@modelcontextprotocol/server';
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';

/**
 * MCP over Streamable HTTP at /mcp: POST (requests), GET (the notification stream),
 * DELETE (end the session). Same bearer token as REST; a session belongs to its opener.
 */
@ApiTags('mcp')
@ApiBearerAuth()
@UseGuards(AuthGuard)
@Controller('mcp')
export class McpController {
  private readonly origins: McpOrigins;

  constructor(
    private readonly sessions: McpSessions,
    private readonly catalog: CatalogService,
    private readonly modern: McpStateless,
    private readonly pipeline: RequestPipeline,
    @Inject(gatewayConfig.KEY) config: GatewayConfig,
  ) {
    this.origins = new McpOrigins(config.mcp.allowedOrigins, config.publicUrl);
  }

  @All()
  @ApiExcludeEndpoint()
  async handle(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const refusal = this.origins.refusal(request.headers);
    if (refusal !== undefined) return refuseMcp(reply, 'ORIGIN_NOT_ALLOWED', refusal);
    if (request.method === 'POST' && request.body === undefined) {
      // an empty POST has no JSON to parse (a malformed one is refused by the body parser)
      return void reply
        .status(400)
        .header('content-type', 'application/json')
        .send(errorFrame(null, RPC.parseError, 'Parse error: the request has no body'));
    }
    const era = mcpEra(request.method, request.headers, request.body);
    switch (era.kind) {
      case 'legacy':
        break;
      case 'modern':
        return this.stateless(principal, era.request, request, reply);
      case 'modern-notification':
        return void reply.status(202).send();
      case 'reject':
        this.pipeline.noteOutcome(`MCP_${-era.code}`);
        return void reply
          .status(era.status)
          .header('content-type', 'application/json')
          .send(errorFrame(era.id, era.code, era.message, era.data));
    }
    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string')
      return this.continueSession(sessionId, principal, request, reply);
    return this.initialize(principal, request, reply);
  }

  /** A 2026-07-28 request: no session, answered from the request alone by any replica. */
  private async stateless(
    principal: Principal,
    message: JSONRPCRequest,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const context = requestedContext(request);
    reply.hijack();
    await this.modern.answer({ principal, context }, message, reply.raw);
  }

  /** A request of an existing session (held here or adopted from Redis). */
  private async continueSession(
    sessionId: string,
    principal: Principal,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    let session;
    try {
      session = await this.sessions.find(sessionId, principal);
    } catch (err) {
      if (err instanceof SessionOwnerError)
        return refuseMcp(reply, 'SESSION_FORBIDDEN', err.message, requestIdOf(request.body));
      throw err;
    }
    const id = requestIdOf(request.body);
    if (!session)
      return refuseMcp(reply, 'SESSION_NOT_FOUND', 'session not found; initialize a new one', id);
    if (session.owner !== ownerOf(principal))
      return refuseMcp(reply, 'SESSION_FORBIDDEN', 'this session belongs to another user', id);
    // the SDK would answer a malformed tools/call with -32603 and a schema dump
    const badParams = request.method === 'POST' ? invalidToolCallParams(request.body) : undefined;
    if (badParams !== undefined)
      return refuseMcp(reply, 'INVALID_PARAMS', badParams, requestIdOf(request.body));
    reply.hijack();
    // a GET is the session's notification stream: announce changes on it while it is open
    const closed =
      request.method === 'GET'
        ? this.sessions.streamOpened(session, () => reply.raw.headersSent)
        : undefined;
    if (closed) reply.raw.once('close', closed);
    await session.transport.handleRequest(withAuth(request, principal), reply.raw, request.body);
    releaseAnsweredJson(session.transport);
  }

  /** A request without a session: only an initialize opens one. */
  private async initialize(
    principal: Principal,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    if (request.method === 'POST' && request.body === undefined) {
      return refuseMcp(reply, 'EMPTY_MESSAGE', 'Parse error: the POST carries no body');
    }
    if (request.method === 'POST' && !isJsonRpcMessage(request.body)) {
      return refuseMcp(
        reply,
        'INVALID_MESSAGE',
        'Invalid Request: the body is not a JSON-RPC 2.0 message',
      );
    }
    if (request.method !== 'POST' || !isInitializeRequest(request.body)) {
      return refuseMcp(
        reply,
        'NO_SESSION',
        'no valid session: send an initialize request first, then the Mcp-Session-Id it returns',
        requestIdOf(request.body),
      );
    }
    const context = requestedContext(request);
    // An unknown context is refused now (400 listing the valid ones), not on the first list.
    await this.catalog.visibleSet(principal, context);
    const params = (request.body as { params?: { protocolVersion?: unknown } }).params;
    const transport = await this.sessions.open({ principal, context }, params?.protocolVersion);
    reply.hijack();
    await transport.handleRequest(withAuth(request, principal), reply.raw, request.body);
    releaseAnsweredJson(transport);
  }
}

/** The raw request with this request's own verified principal, as the SDK hands it to handlers. */
function withAuth(
  request: FastifyRequest,
  principal: Principal,
): IncomingMessage & { auth: AuthInfo } {
  return Object.assign(request.raw, { auth: requestAuth(principal) });
}
