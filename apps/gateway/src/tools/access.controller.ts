import { AccessExplainer } from '@app/registry';
import type { AccessExplanation, Principal } from '@app/registry';
import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { AuthGuard, CurrentPrincipal } from '../auth/auth.guard';
import { GatewayError } from '../errors';

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
  @ApiQuery({ name: 'tool', required: true })
  @ApiQuery({ name: 'context', required: false })
  @ApiQuery({ name: 'user', required: false, description: 'admins only: explain for this user' })
  @ApiQuery({
    name: 'roles',
    required: false,
    description: "admins only: that user's token roles, comma-separated",
  })
  @ApiQuery({
    name: 'claims',
    required: false,
    description: "admins only: that user's claims, name=value,...",
  })
  explain(
    @CurrentPrincipal() viewer: Principal,
    @Query('tool') tool?: string,
    @Query('context') context?: string,
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
    return this.explainer.explain(viewer, subject, tool, context || undefined);
  }
}
