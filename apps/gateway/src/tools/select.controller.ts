import type { Principal } from '@app/registry';
import { SelectionService } from '@app/selection';
import type { SelectResponse } from '@app/selection';
import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { TOOL_FORMATS } from '@app/templates';
import { AuthGuard, CurrentPrincipal } from '../auth/auth.guard';

@ApiTags('tools')
@ApiBearerAuth()
@UseGuards(AuthGuard)
@Controller('v1/tools/select')
export class SelectController {
  constructor(private readonly selection: SelectionService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary:
      "The business contexts of a conversation and the caller's tools ranked for it, each with the words that matched",
  })
  @ApiBody({
    schema: {
      type: 'object',
      required: ['messages'],
      properties: {
        messages: {
          type: 'array',
          items: { type: 'object' },
          description: 'OpenAI or Anthropic messages',
        },
        limit: { type: 'integer', minimum: 1, maximum: 50, default: 5 },
        context: { type: 'string', description: 'keep to this business context' },
        format: { type: 'string', enum: [...TOOL_FORMATS], default: 'openai' },
      },
    },
  })
  select(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SelectResponse> {
    return this.selection.select(principal, body);
  }
}
