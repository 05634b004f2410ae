import { MetaToolService } from '@app/meta-tool';
import type { Decision, Proposal } from '@app/meta-tool';
import type { Principal } from '@app/registry';
import { Body, Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthGuard, CurrentPrincipal } from '../auth/auth.guard';
import { ApiAnswer, AUTHED } from '../http/openapi';

/** The human gate over HTTP: reviewers (role tool_reviewer) of the proposal's tenant. */
@ApiTags('meta-tool')
@ApiBearerAuth()
@UseGuards(AuthGuard)
@Controller('v1/admin/meta-tool/proposals')
export class MetaToolController {
  constructor(private readonly metaTool: MetaToolService) {}

  @Get()
  @ApiOperation({ summary: 'Pending proposals of your tenant' })
  @ApiAnswer({ schema: 'ProposalList' })
  async list(@CurrentPrincipal() reviewer: Principal): Promise<{ proposals: Proposal[] }> {
    return { proposals: await this.metaTool.listPending(reviewer) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One proposal with its full source and test arguments' })
  @ApiAnswer({ schema: 'Proposal', errors: [...AUTHED, 404] })
  get(@CurrentPrincipal() reviewer: Principal, @Param('id') id: string): Promise<Proposal> {
    return this.metaTool.get(reviewer, id);
  }

  @Post(':id/approve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Approve: runs the sandboxed runtime gate, then installs atomically' })
  @ApiAnswer({ schema: 'Decision', errors: [...AUTHED, 404, 409, 422] })
  approve(@CurrentPrincipal() reviewer: Principal, @Param('id') id: string): Promise<Decision> {
    return this.metaTool.approve(reviewer, id);
  }

  @Post(':id/reject')
  @HttpCode(200)
  @ApiOperation({ summary: 'Reject with a reason (body {"reason": "..."})' })
  @ApiAnswer({
    schema: 'Decision',
    body: 'RejectRequest',
    bodyRequired: false,
    errors: [...AUTHED, 404, 409],
  })
  reject(
    @CurrentPrincipal() reviewer: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<Decision> {
    const reason =
      body && typeof body === 'object' && typeof (body as { reason?: unknown }).reason === 'string'
        ? (body as { reason: string }).reason
        : '';
    return this.metaTool.reject(reviewer, id, reason.slice(0, 500));
  }
}
