import { Catch, Inject, Logger } from '@nestjs/common';
import type { ArgumentsHost, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerChallenge, publicBaseUrl } from '../auth/resource-metadata';
import { AuthError } from '../auth/token-verifier';
import { gatewayConfig } from '../config/gateway.config';
import type { GatewayConfig } from '../config/gateway.config';
import { httpErrorOf, jsonRpcErrorOf } from '../errors';
import { LimitError } from '../pipeline/limits';
import { requestIdOf } from '../mcp/stateless/mcp-era';
import { Redactor } from '../pipeline/record/redact';
import { RequestPipeline } from '../pipeline/request-pipeline';

function isMcpPath(url: string | undefined): boolean {
  return url !== undefined && /^\/mcp(?:[/?]|$)/.test(url);
}

/**
 * Where thrown errors leave Nest routes: the answer comes from `errors/` (one mapping per
 * transport); this adds the trace id, redaction and the Retry-After / WWW-Authenticate headers.
 */
@Catch()
export class DomainExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');
  private readonly redactor: Redactor;

  constructor(
    private readonly pipeline: RequestPipeline,
    @Inject(gatewayConfig.KEY) private readonly config: GatewayConfig,
  ) {
    this.redactor = new Redactor(config);
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const ctx = this.pipeline.contextOf(http.getRequest<FastifyRequest>().raw);
    const answer = httpErrorOf(exception);
    const { status, body } = answer;
    if (!answer.known)
      this.logger.error(
        exception instanceof Error ? (exception.stack ?? exception.message) : String(exception),
      );
    body.error.message = this.redactor.redact(body.error.message);
    if (ctx) {
      ctx.outcome = body.error.code;
      body.trace_id = ctx.traceId;
    }
    if (exception instanceof LimitError)
      void reply.header('retry-after', String(exception.retryAfterSeconds));
    else if (status === 503) void reply.header('retry-after', '2');
    if (exception instanceof AuthError) {
      const request = host.switchToHttp().getRequest<FastifyRequest>();
      void reply.header(
        'www-authenticate',
        bearerChallenge(exception, publicBaseUrl(this.config, request.raw.socket)),
      );
    }
    const request = host.switchToHttp().getRequest<FastifyRequest | undefined>();
    // MCP clients read JSON-RPC error objects, whatever went wrong before the SDK saw the message
    const payload = isMcpPath(request?.url)
      ? { jsonrpc: '2.0', error: jsonRpcErrorOf(exception, answer), id: requestIdOf(request?.body) }
      : body;
    void reply
      .status(status)
      .header('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify(payload));
  }
}
