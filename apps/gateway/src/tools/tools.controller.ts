import { CatalogService, withSpan } from '@app/registry';
import type { Principal, ToolCallOutcome } from '@app/registry';
import { isToolFormat, TOOL_FORMATS } from '@app/templates';
import type { ToolFormat } from '@app/templates';
import {
  BadRequestException,
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
import {
  ApiBearerAuth,
  ApiBody,
  ApiHeader,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthGuard, CurrentPrincipal } from '../auth/auth.guard';
import { requestedContext } from '../http/hot-paths';
import { currentRequest } from '../pipeline/request-context';
import { RequestPipeline, UNTRUSTED_ROWS_NOTICE } from '../pipeline/request-pipeline';
import { LIST_CONTENT_TYPE } from './tool-list.hot-path';

/** A tool call's REST answer: the outcome, its trace id and (for data) what the rows are. */
export type RestToolResult = ToolCallOutcome & {
  trace_id: string | undefined;
  meta?: { untrusted_data: true; notice: string };
};

function parseFormat(value: string | undefined): ToolFormat {
  if (value === undefined || value === '') return 'openai';
  if (!isToolFormat(value))
    throw new BadRequestException(
      `format must be one of ${TOOL_FORMATS.join(', ')}; got "${value}"`,
    );
  return value;
}

@ApiTags('tools')
@ApiBearerAuth()
@UseGuards(AuthGuard)
@Controller('v1/tools')
export class ToolsController {
  constructor(
    private readonly catalog: CatalogService,
    private readonly pipeline: RequestPipeline,
  ) {}

  @Get()
  @ApiOperation({ summary: "The caller's tools, in the requested provider format" })
  @ApiQuery({ name: 'format', required: false, enum: TOOL_FORMATS })
  @ApiQuery({ name: 'context', required: false, description: 'business context, e.g. SALES' })
  @ApiHeader({ name: 'X-Business-Context', required: false })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Query('format') format?: string,
  ): Promise<void> {
    // The body is cached already serialised; it is sent as is. Warm requests are answered
    // the same way by ToolListHotPath before they get here.
    const toolFormat = parseFormat(format);
    this.pipeline.noteList(toolFormat);
    const attributes = { 'gateway.tenant': principal.tenantId, 'gateway.format': toolFormat };
    const { body, key } = await withSpan('tool.list', attributes, () =>
      this.catalog.listBody(principal, toolFormat, requestedContext(request)),
    );
    await reply.header('content-type', LIST_CONTENT_TYPE).header('x-toolset-key', key).send(body);
  }

  @Post(':name/call')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Run a tool; tool-level failures come back as is_error, not HTTP errors',
  })
  @ApiBody({ schema: { type: 'object', properties: { arguments: { type: 'object' } } } })
  async call(
    @CurrentPrincipal() principal: Principal,
    @Param('name') name: string,
    @Body() body: unknown,
  ): Promise<RestToolResult> {
    const args =
      body && typeof body === 'object' ? (body as { arguments?: unknown }).arguments : undefined;
    const outcome = await this.pipeline.callTool(principal, name, args, 'rest');
    const trace_id = currentRequest()?.traceId;
    return outcome.is_error
      ? { ...outcome, trace_id }
      : { ...outcome, trace_id, meta: { untrusted_data: true, notice: UNTRUSTED_ROWS_NOTICE } };
  }
}
