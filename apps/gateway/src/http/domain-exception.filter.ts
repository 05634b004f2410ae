import { MetaToolError } from '@app/meta-tool';
import type { MetaToolErrorCode } from '@app/meta-tool';
import { RegistryError } from '@app/registry';
import { SelectionError } from '@app/selection';
import type { SelectionErrorCode } from '@app/selection';
import type { RegistryErrorCode } from '@app/registry';
import { TemplateError } from '@app/templates';
import { Catch, HttpException, Inject, Logger } from '@nestjs/common';
import type { ArgumentsHost, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerChallenge, publicBaseUrl } from '../auth/resource-metadata';
import { AuthError } from '../auth/token-verifier';
import { gatewayConfig } from '../config/gateway.config';
import type { GatewayConfig } from '../config/gateway.config';
import { LimitError } from '../pipeline/limits';
import { Redactor } from '../pipeline/redact';
import { RequestPipeline } from '../pipeline/request-pipeline';
import { isBackendUnreachable } from './unreachable';

interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
  trace_id?: string;
}

function selectionStatus(code: SelectionErrorCode): number {
  switch (code) {
    case 'INVALID_SELECT_REQUEST':
      return 400;
  }
}

function metaToolStatus(code: MetaToolErrorCode): number {
  switch (code) {
    case 'FORBIDDEN':
      return 403;
    case 'PROPOSAL_NOT_FOUND':
    case 'GENERATED_TOOL_NOT_FOUND':
      return 404;
    case 'PROPOSAL_NOT_PENDING':
      return 409;
    case 'REFUSED':
      return 422;
  }
}

function registryStatus(code: RegistryErrorCode): number {
  switch (code) {
    case 'TOOL_NOT_FOUND':
    case 'REPORT_NOT_FOUND':
      return 404;
    case 'UNKNOWN_CONTEXT':
      return 400;
    case 'TENANT_NOT_FOUND':
      return 401;
    case 'FORBIDDEN':
      return 403;
    case 'INVALID_REPORT':
      return 422;
    case 'DATABASE_UNAVAILABLE':
      return 503;
  }
}

function isMcpPath(url: string | undefined): boolean {
  return url !== undefined && /^\/mcp(?:[/?]|$)/.test(url);
}

/** A body the JSON parser refused (Fastify's content-type parser errors, or a SyntaxError). */
function isBodyParseError(exception: unknown): boolean {
  const code = (exception as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('FST_ERR_CTP_')) return true;
  if (exception instanceof SyntaxError) return true;
  const cause = exception instanceof HttpException ? exception.cause : undefined;
  return cause !== undefined && cause !== exception && isBodyParseError(cause);
}

/** JSON-RPC 2.0 codes: -32700 parse, -32600 invalid request, -32602 invalid params, -32603 internal. */
function jsonRpcError(
  exception: unknown,
  status: number,
  body: ErrorBody,
): { code: number; message: string; data?: Record<string, unknown> } {
  const { message, details } = body.error;
  const data = { status, code: body.error.code, ...(details ?? {}) };
  if (status === 400 && (isBodyParseError(exception) || /JSON|body/i.test(message)))
    return { code: -32700, message: `Parse error: ${message}`, data };
  if (exception instanceof RegistryError && exception.code === 'UNKNOWN_CONTEXT')
    return { code: -32602, message, data };
  if (status >= 500) return { code: -32603, message, data };
  return { code: status === 401 || status === 403 ? -32000 : -32600, message, data };
}

/** The one place domain errors become HTTP. Anything unknown is a 500 that says nothing inside. */
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
    const [status, body] = this.describe(exception);
    body.error.message = this.redactor.redact(body.error.message);
    if (ctx) {
      ctx.outcome = body.error.code;
      body.trace_id = ctx.traceId;
    }
    if (exception instanceof LimitError)
      void reply.header('retry-after', String(exception.retryAfterSeconds));
    if (status === 503) void reply.header('retry-after', '2');
    if (exception instanceof AuthError) {
      const request = host.switchToHttp().getRequest<FastifyRequest>();
      void reply.header(
        'www-authenticate',
        bearerChallenge(exception, publicBaseUrl(this.config, request.headers)),
      );
    }
    const request = host.switchToHttp().getRequest<FastifyRequest | undefined>();
    // MCP clients read JSON-RPC error objects, whatever went wrong before the SDK saw the message
    const payload = isMcpPath(request?.url)
      ? { jsonrpc: '2.0', error: jsonRpcError(exception, status, body), id: null }
      : body;
    void reply
      .status(status)
      .header('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify(payload));
  }

  private describe(exception: unknown): [number, ErrorBody] {
    if (exception instanceof LimitError) {
      return [
        429,
        {
          error: {
            code: exception.code,
            message: `${exception.message}. Nothing was run.`,
            details: { limit: exception.limit, retry_after_seconds: exception.retryAfterSeconds },
          },
        },
      ];
    }
    if (exception instanceof RegistryError) {
      return [
        registryStatus(exception.code),
        {
          error: {
            code: exception.code,
            message: exception.message,
            ...(exception.details ? { details: exception.details } : {}),
          },
        },
      ];
    }
    if (exception instanceof MetaToolError) {
      return [
        metaToolStatus(exception.code),
        { error: { code: exception.code, message: exception.message } },
      ];
    }
    if (exception instanceof SelectionError) {
      return [
        selectionStatus(exception.code),
        { error: { code: exception.code, message: exception.message } },
      ];
    }
    if (exception instanceof AuthError) {
      return [401, { error: { code: 'UNAUTHENTICATED', message: exception.message } }];
    }
    if (exception instanceof TemplateError) {
      return [
        422,
        {
          error: {
            code: exception.code,
            message: exception.message,
            details: { problems: exception.problems },
          },
        },
      ];
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const response = exception.getResponse();
      const message =
        typeof response === 'string'
          ? response
          : ((response as { message?: unknown }).message ?? exception.message);
      return [
        status,
        {
          error: {
            code: `HTTP_${status}`,
            message: Array.isArray(message) ? message.join('; ') : String(message),
          },
        },
      ];
    }
    if (isBackendUnreachable(exception)) {
      // a database or Redis outage, not a bug: a coded 503 the client may retry
      this.logger.warn(
        `backend unreachable: ${String((exception as { message?: unknown }).message)}`,
      );
      return [
        503,
        {
          error: {
            code: 'DATABASE_UNAVAILABLE',
            message:
              'the database is unreachable right now; try again in a few seconds (a write that was cut off may or may not have been applied: read it back)',
          },
        },
      ];
    }
    this.logger.error(
      exception instanceof Error ? (exception.stack ?? exception.message) : String(exception),
    );
    return [
      500,
      { error: { code: 'INTERNAL', message: 'internal error; the request was not completed' } },
    ];
  }
}
