import { CatalogService } from '@app/registry';
import { requestedFormat } from '@app/templates';
import { Injectable } from '@nestjs/common';
import { RequestPipeline } from '../pipeline/request-pipeline';
import { requestedContext } from '../pipeline/business-context';
import { AsHotPath } from '../http/hot-path';
import { ListAnswers, notModified } from './list-etag';
import type { HotAnswer, HotPath, HotRequest } from '../http/hot-path';

/**
 * GET /v1/tools when the answer is already in memory: a token this instance verified, a
 * catalog the LISTEN connection vouches for, a known context and a list body in L1. It
 * sends the same bytes and headers as ToolsController.list, which answers everything else,
 * and the same 304 to a client that already holds the list (list-etag.ts).
 */
@AsHotPath()
@Injectable()
export class ToolListHotPath implements HotPath {
  readonly method = 'GET';
  readonly url = '/v1/tools';

  private readonly answers = new ListAnswers();

  constructor(
    private readonly pipeline: RequestPipeline,
    private readonly catalog: CatalogService,
  ) {}

  answer(request: HotRequest): HotAnswer | undefined {
    const principal = this.pipeline.cachedPrincipal(request.headers.authorization);
    if (!principal) return undefined;
    const format = requestedFormat(request.query.format, request.query.strict);
    if (!format.ok) return undefined;
    const hit = this.catalog.cachedListBody(principal, format.format, requestedContext(request));
    if (!hit) return undefined;
    this.pipeline.noteList(format.format, true);
    const answer = this.answers.of(hit.key, format.format, hit.body);
    if (notModified(request.headers['if-none-match'], answer.etag))
      return { status: 304, headers: answer.notModified, body: [] };
    return { headers: answer.headers, body: [hit.body] };
  }
}
