import { Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { gatewayConfig } from '../config/gateway.config';
import type { GatewayConfig } from '../config/gateway.config';
import { publicBaseUrl, resourceMetadata } from './resource-metadata';
import { AuthError, TokenVerifier } from './token-verifier';
import { ApiAnswer } from '../http/openapi';

/**
 * RFC 9728 metadata, public (no token): where MCP clients learn which authorization server
 * issues tokens for this gateway. Also served under the /mcp suffix, which MCP clients try
 * first for a server at /mcp.
 */
@ApiTags('auth')
@Controller('.well-known/oauth-protected-resource')
export class WellKnownController {
  constructor(@Inject(gatewayConfig.KEY) private readonly config: GatewayConfig) {}

  @Get()
  @ApiOperation({ summary: 'OAuth protected resource metadata (RFC 9728)' })
  @ApiAnswer({ schema: 'ResourceMetadata', errors: [] })
  root(@Req() request: FastifyRequest): object {
    return resourceMetadata(this.config, publicBaseUrl(this.config, request.raw.socket));
  }

  @Get('mcp')
  @ApiOperation({ summary: 'OAuth protected resource metadata for /mcp (RFC 9728)' })
  @ApiAnswer({ schema: 'ResourceMetadata', errors: [] })
  mcp(@Req() request: FastifyRequest): object {
    return resourceMetadata(this.config, publicBaseUrl(this.config, request.raw.socket));
  }
}

/**
 * `POST /register`, where MCP clients (mcp-remote, the SDK's auth flow) try OAuth dynamic
 * client registration after a 401 when no authorization server is named. The gateway issues
 * no tokens: it refuses with an RFC 7591 error whose description is the reason the client's
 * token was refused, so the user reads the gateway's message instead of "Cannot POST /register".
 */
@Controller('register')
export class ClientRegistrationController {
  constructor(
    @Inject(gatewayConfig.KEY) private readonly config: GatewayConfig,
    private readonly verifier: TokenVerifier,
  ) {}

  @Post()
  @ApiExcludeEndpoint()
  async register(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    let reason: string;
    try {
      await this.verifier.verify(request.headers.authorization);
      reason = 'the token sent is valid; send it as Authorization: Bearer <token> on /mcp';
    } catch (err) {
      reason = err instanceof AuthError ? err.message : 'the token could not be checked';
    }
    const where =
      this.config.auth.authorizationServers.length > 0
        ? `tokens come from ${this.config.auth.authorizationServers.join(', ')}`
        : 'no OAuth authorization server is configured: send a bearer token from your administrator (npm run token in development) with --header "Authorization: Bearer <token>"';
    await reply
      .status(400)
      .header('cache-control', 'no-store')
      .send({
        error: 'invalid_client_metadata',
        error_description: `report tool gateway: ${reason}. This gateway does not register OAuth clients; ${where}`,
      });
  }
}
