import { CatalogService, ToolCallService, withSpan } from '@app/registry';
import { SelectionService } from '@app/selection';
import type { Principal, ToolCallOutcome } from '@app/registry';
import { compactPage, REQUESTED_FORMATS, requestedFormat } from '@app/templates';
import type { ToolFormat } from '@app/templates';
import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthGuard, CurrentPrincipal } from '../auth/auth.guard';
import { GatewayError } from '../errors';
import { requestedContext } from '../pipeline/business-context';
import { ApiAnswer, ApiStringQuery, AUTHED } from '../http/openapi';
import { RequestPipeline } from '../pipeline/request-pipeline';
import { parseCallRequest } from './call-body';
import { restResult } from './tool-call.hot-path';
import type { RestToolResult } from './tool-call.hot-path';
import { LIST_CACHE_CONTROL, listEtag, notModified } from './list-etag';
import { LIST_CONTENT_TYPE } from './list-etag';
import { CHART_FORMATS, ReportCharts } from '../charts/report-charts';
import type { ChartFormat } from '../charts/report-charts';

export type { RestToolResult } from './tool-call.hot-path';

function parseFormat(format: unknown, strict: unknown): ToolFormat {
  const parsed = requestedFormat(format, strict);
  if (!parsed.ok) throw new GatewayError('HTTP_400', parsed.message);
  return parsed.format;
}

@ApiTags('tools')
@ApiBearerAuth()
@UseGuards(AuthGuard)
@Controller('v1/tools')
export class ToolsController {
  constructor(
    private readonly catalog: CatalogService,
    private readonly selection: SelectionService,
    private readonly calls: ToolCallService,
    private readonly pipeline: RequestPipeline,
    private readonly charts: ReportCharts,
  ) {}

  @Get()
  @ApiOperation({ summary: "The caller's tools, in the requested provider format" })
  @ApiStringQuery('format', 'provider format of the list (default openai)', {
    enum: REQUESTED_FORMATS,
  })
  @ApiStringQuery('strict', 'provider strict mode (openai, openai-responses, anthropic)', {
    enum: ['true', 'false'],
  })
  @ApiStringQuery('context', 'business context, e.g. SALES (or the X-Business-Context header)', {
    example: 'SALES',
  })
  @ApiHeader({ name: 'X-Business-Context', required: false, schema: { type: 'string' } })
  @ApiAnswer({ schema: 'ToolList', description: 'the tools, in the requested format' })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Query('format') format?: string,
    @Query('strict') strict?: string,
  ): Promise<void> {
    // The body is cached already serialised; it is sent as is. Warm requests are answered
    // the same way by ToolListHotPath before they get here.
    const toolFormat = parseFormat(format, strict);
    this.pipeline.noteList(toolFormat);
    const attributes = { 'gateway.tenant': principal.tenantId, 'gateway.format': toolFormat };
    const { body, key } = await withSpan('tool.list', attributes, () =>
      this.catalog.listBody(principal, toolFormat, requestedContext(request)),
    );
    const etag = listEtag(key, toolFormat);
    void reply
      .header('content-type', LIST_CONTENT_TYPE)
      .header('x-toolset-key', key)
      .header('etag', etag)
      .header('cache-control', LIST_CACHE_CONTROL);
    if (notModified(request.headers['if-none-match'], etag)) await reply.status(304).send();
    else await reply.send(body);
  }

  @Post(':name/call')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Run a tool; tool-level failures come back as is_error, not HTTP errors',
  })
  @ApiStringQuery('encoding', 'rows as objects (default) or as arrays after the columns', {
    enum: ['objects', 'compact'],
  })
  @ApiStringQuery('chart', "the report's chart of the page: a Vega-Lite spec or an SVG", {
    enum: [...CHART_FORMATS],
  })
  @ApiAnswer({
    schema: 'ToolResult',
    body: 'CallRequest',
    bodyRequired: false,
    errors: [...AUTHED, 404, 413],
  })
  async call(
    @CurrentPrincipal() principal: Principal,
    @Param('name') name: string,
    @Body() body: unknown,
    @Query('encoding') encoding?: string,
    @Query('chart') chart?: string,
  ): Promise<RestToolResult<object>> {
    const request = parseCallRequest(body, encoding);
    if (!request.ok) throw new GatewayError('HTTP_400', request.message);
    if (chart !== undefined && !(CHART_FORMATS as readonly string[]).includes(chart))
      throw new GatewayError('HTTP_400', `chart must be one of ${CHART_FORMATS.join(', ')}`);
    const args = request.value.arguments;
    // through the pipeline (limits, span, counters): the disclosure built-ins when the
    // caller's list has them, else the one call path; malformed arguments are refused there
    const outcome: ToolCallOutcome = await this.pipeline.callTool(
      principal,
      name,
      args.ok ? args.value : undefined,
      'rest',
      async () =>
        args.ok
          ? (await this.selection.call(principal, name, args.value)).outcome
          : this.calls.refuse(principal, name, args.message),
    );
    const drawn =
      chart === undefined
        ? undefined
        : await this.charts.attach(principal, name, outcome, chart as ChartFormat);
    const withChart = <T extends object>(answer: T) =>
      drawn ? { ...answer, chart: drawn } : answer;
    if (request.value.encoding === 'compact' && !outcome.is_error && outcome.text === undefined)
      return withChart(restResult({ ...outcome, result: compactPage(outcome.result) }));
    return withChart(restResult(outcome));
  }
}
