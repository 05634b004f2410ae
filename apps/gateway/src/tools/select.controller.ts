import type { Principal } from '@app/registry';
import { SelectionService } from '@app/selection';
import type { SelectResponse } from '@app/selection';
import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthGuard, CurrentPrincipal } from '../auth/auth.guard';
import { ApiAnswer } from '../http/openapi';

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
  @ApiAnswer({ schema: 'SelectResponse', body: 'SelectRequest' })
  select(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SelectResponse> {
    return this.selection.select(principal, body);
  }
}
