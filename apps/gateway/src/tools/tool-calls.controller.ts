import { ToolCallService } from '@app/registry';
import type { Principal, ToolCallOutcome } from '@app/registry';
import { resultText } from '@app/templates';
import { Body, Controller, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthGuard, CurrentPrincipal } from '../auth/auth.guard';
import { batchOutcomeOf, GatewayError } from '../errors';
import type { ToolErrorOutcome } from '../errors';
import { gatewayConfig } from '../config/gateway.config';
import { ApiAnswer, AUTHED } from '../http/openapi';
import type { GatewayConfig } from '../config/gateway.config';
import { parseCallBatch, resultMessages } from './provider-tool-calls';
import type { CallText, ProviderCall } from './provider-tool-calls';

export type BatchOutcome = ToolCallOutcome | ToolErrorOutcome;

/**
 * Runs the tool calls a provider returned, as it returned them, and answers with the
 * messages to append to the conversation plus each call's structured outcome.
 */
@ApiTags('tools')
@ApiBearerAuth()
@UseGuards(AuthGuard)
@Controller('v1/tool-calls')
export class ToolCallsController {
  constructor(
    private readonly calls: ToolCallService,
    @Inject(gatewayConfig.KEY) private readonly config: GatewayConfig,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Run OpenAI tool_calls, Responses function_call items or Anthropic tool_use blocks in parallel; returns ready-to-append messages',
  })
  @ApiAnswer({ schema: 'ToolCallsResponse', body: 'ToolCallsRequest', errors: [...AUTHED, 413] })
  async run(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<object> {
    const batch = parseCallBatch(body);
    if (!batch.ok) throw new GatewayError('HTTP_400', batch.message);
    const outcomes = await Promise.all(batch.value.calls.map((c) => this.one(principal, c)));
    const texts: CallText[] = outcomes.map((outcome, i) => ({
      id: batch.value.calls[i].id,
      text: this.text(outcome),
      isError: outcome.is_error,
    }));
    return {
      format: batch.value.format,
      ...resultMessages(batch.value.format, texts),
      results: outcomes.map((outcome, i) => ({ id: batch.value.calls[i].id, ...outcome })),
    };
  }

  /** One call's own outcome; a missing tool is that call's error, not the batch's. */
  private async one(principal: Principal, call: ProviderCall): Promise<BatchOutcome> {
    try {
      if (!call.arguments.ok)
        return await this.calls.refuse(principal, call.name, call.arguments.message);
      return await this.calls.call(principal, call.name, call.arguments.value);
    } catch (err) {
      const outcome = batchOutcomeOf(call.name, err);
      if (outcome) return outcome;
      throw err;
    }
  }

  private text(outcome: BatchOutcome): string {
    if (outcome.is_error) return `Error ${outcome.error.code}: ${outcome.error.message}`;
    if (outcome.text !== undefined) return outcome.text;
    return resultText(outcome.result, this.config.mcp.textMaxBytes);
  }
}
