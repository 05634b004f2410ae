import { AccessExplainer } from '@app/registry';
import type { AccessExplanation, Principal } from '@app/registry';
import { Controller, Get, Query, Req, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AuthGuard, CurrentPrincipal } from '../auth/auth.guard';
import { GatewayError } from '../errors';
import { ApiAnswer, ApiStringQuery, AUTHED } from '../http/openapi';
import { requestedContext } from '../pipeline/business-context';

function parseClaims(raw: string | undefined): Record<string, string> {
  const claims: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',').filter(Boolean)) {
    const eq = pair.indexOf('=');
    if (eq <= 0)
      throw new GatewayError(
        'HTTP_400',
        `claims takes name=value pairs separated by commas; got "${pair}"`,
      );
    claims[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return claims;
}

@ApiTags('access')
@ApiBearerAuth()
@UseGuards(AuthGuard)
@Controller('v1/me/tools')
export class AccessController {
  constructor(private readonly explainer: AccessExplainer) {}

  @Get('explain')
  @ApiOperation({
    summary:
      'Why a tool is or is not in a tool list (admins may ask about another user of their tenant)',
  })
  @ApiStringQuery('tool', 'the tool name', {
    required: true,
    example: 'query_report_sales_by_region',
  })
  @ApiStringQuery('context', 'business context, e.g. SALES (or the X-Business-Context header)', {
    example: 'SALES',
  })
  @ApiHeader({ name: 'X-Business-Context', required: false, schema: { type: 'string' } })
  @ApiStringQuery('user', 'admins only: explain for this user')
  @ApiStringQuery('roles', "admins only: that user's token roles, comma-separated")
  @ApiStringQuery('claims', "admins only: that user's claims, name=value,...")
  @ApiAnswer({ schema: 'AccessExplanation', errors: [...AUTHED, 404] })
  explain(
    @CurrentPrincipal() viewer: Principal,
    @Req() request: FastifyRequest,
    @Query('tool') tool?: string,
    @Query('user') user?: string,
    @Query('roles') roles?: string,
    @Query('claims') claims?: string,
  ): Promise<AccessExplanation> {
    if (!tool)
      throw new GatewayError(
        'HTTP_400',
        'tool is required, e.g. ?tool=query_report_sales_by_region',
      );
    const subject: Principal = user
      ? {
          tenantId: viewer.tenantId,
          userId: user,
          roles: (roles ?? '').split(',').filter(Boolean),
          claims: parseClaims(claims),
        }
      : viewer;
    return this.explainer.explain(viewer, subject, tool, requestedContext(request));
  }
}
