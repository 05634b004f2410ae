import { CatalogService } from '@app/registry';
import { isToolFormat } from '@app/templates';
import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TokenVerifier } from '../auth/token-verifier';
import { requestedContext, sendRaw } from '../http/hot-paths';
import type { HotPath } from '../http/hot-paths';

/**
 * GET /v1/tools when the answer is already in memory: a token this instance verified, a
 * catalog the LISTEN connection vouches for, a known context and a list body in L1. It
 * sends the same bytes and headers as ToolsController.list, which answers everything else.
 */
@Injectable()
export class ToolListHotPath implements HotPath {
  readonly method = 'GET';
  readonly url = '/v1/tools';

  constructor(
    private readonly verifier: TokenVerifier,
    private readonly catalog: CatalogService,
  ) {}

  serve(request: FastifyRequest, reply: FastifyReply): boolean {
    const principal = this.verifier.cached(request.headers.authorization);
    if (!principal) return false;
    const format = (request.query as { format?: unknown }).format ?? 'openai';
    if (typeof format !== 'string' || !isToolFormat(format)) return false;
    const hit = this.catalog.cachedListBody(principal, format, requestedContext(request));
    if (!hit) return false;
    sendRaw(reply, { 'content-type': LIST_CONTENT_TYPE, 'x-toolset-key': hit.key }, hit.body);
    return true;
  }
}

export const LIST_CONTENT_TYPE = 'application/json; charset=utf-8';
