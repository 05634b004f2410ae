import type { Principal } from '@app/registry';
import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthGuard, CurrentPrincipal } from '../auth/auth.guard';
import { GatewayError } from '../errors';
import { ConsoleAdminService } from './console-admin.service';
import { ConsoleUsageService } from './console-usage.service';
import { ApiAnswer, ApiStringQuery, AUTHED } from '../http/openapi';

function parseClaims(raw: string | undefined): Record<string, string> {
  const claims: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',').filter(Boolean)) {
    const eq = pair.indexOf('=');
    if (eq <= 0)
      throw new GatewayError(
        'HTTP_400',
        `claims takes name=value pairs separated by commas; got "${pair}"`,
      );
    claims[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  return claims;
}

/** The admin console's own reads and dry runs; nothing here writes. */
@ApiTags('admin console')
@ApiBearerAuth()
@UseGuards(AuthGuard)
@Controller('v1/admin')
export class ConsoleAdminController {
  constructor(
    private readonly console: ConsoleAdminService,
    private readonly usageReads: ConsoleUsageService,
  ) {}

  @Get('console/catalog')
  @ApiOperation({ summary: "Every report of the admin's tenant: status, why, contexts, version" })
  @ApiAnswer({ schema: 'ConsoleView' })
  catalog(@CurrentPrincipal() admin: Principal) {
    return this.console.catalog(admin);
  }

  @Post('reports/:id/validate')
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Dry run of PUT: the guard's verdict with the offending part, the rendered tool in every format; writes nothing",
  })
  @ApiAnswer({ schema: 'ConsoleView', body: 'ReportDocument', errors: [...AUTHED, 413] })
  validate(
    @CurrentPrincipal() admin: Principal,
    @Param('id') id: string,
    @Body() document: unknown,
  ) {
    return this.console.validate(admin, id, document);
  }

  @Post('reports/:id/try')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Runs an unsaved report document read-only with sample arguments: {report, arguments} -> the first page',
  })
  @ApiAnswer({ schema: 'ConsoleView', body: 'TryRequest', errors: [...AUTHED, 413, 422] })
  tryIt(@CurrentPrincipal() admin: Principal, @Param('id') id: string, @Body() body: unknown) {
    return this.console.tryIt(admin, id, body);
  }

  @Get('access/tools')
  @ApiOperation({ summary: 'The tool list a user (roles, claims) of your tenant gets' })
  @ApiStringQuery('user', 'the user id', { required: true, example: 'alice' })
  @ApiStringQuery('roles', 'comma-separated token roles')
  @ApiStringQuery('claims', 'name=value,...')
  @ApiStringQuery('context', 'business context, e.g. SALES', { example: 'SALES' })
  @ApiAnswer({ schema: 'ConsoleView' })
  accessTools(
    @CurrentPrincipal() admin: Principal,
    @Query('user') user?: string,
    @Query('roles') roles?: string,
    @Query('claims') claims?: string,
    @Query('context') context?: string,
  ) {
    if (!user)
      throw new GatewayError('HTTP_400', 'user is required, e.g. ?user=alice&roles=analyst');
    return this.console.accessTools(
      admin,
      {
        user,
        roles: (roles ?? '')
          .split(',')
          .map((r) => r.trim())
          .filter(Boolean),
        claims: parseClaims(claims),
      },
      context || undefined,
    );
  }

  @Get('meta-tool/review')
  @ApiOperation({
    summary: "Reviewers: pending proposals with the static gate's findings, and past decisions",
  })
  @ApiAnswer({ schema: 'ConsoleView' })
  review(@CurrentPrincipal() reviewer: Principal) {
    return this.console.review(reviewer);
  }

  @Get('console/usage')
  @ApiOperation({
    summary:
      'How one tool of your tenant is used: calls, error and empty rates, p50/p95, how callers found it, per day',
  })
  @ApiStringQuery('tool', 'the tool name', { required: true, example: 'query_report_sales' })
  @ApiStringQuery('days', 'days back, 1 to 90 (default 14)', { example: '14' })
  @ApiAnswer({ schema: 'ConsoleView' })
  usage(
    @CurrentPrincipal() admin: Principal,
    @Query('tool') tool?: string,
    @Query('days') days?: string,
  ) {
    if (!tool || tool.length > 128 || !/^[A-Za-z0-9_-]+$/.test(tool))
      throw new GatewayError(
        'HTTP_400',
        'tool is required: a tool name, e.g. ?tool=query_report_sales',
      );
    return this.usageReads.usage(admin, tool, usageDays(days));
  }

  @Get('console/usage/overview')
  @ApiOperation({
    summary:
      'Every report of your tenant with calls, errors, empty results and p50/p95 over the period; never-called ones included',
  })
  @ApiStringQuery('days', 'days back, 1 to 90 (default 14)', { example: '14' })
  @ApiAnswer({ schema: 'ConsoleView' })
  usageOverview(@CurrentPrincipal() admin: Principal, @Query('days') days?: string) {
    return this.usageReads.usageOverview(admin, usageDays(days));
  }

  @Get('console/health')
  @ApiOperation({
    summary: "The tenant's catalog version, reports, calls per minute; this instance's caches",
  })
  @ApiAnswer({ schema: 'ConsoleView' })
  health(@CurrentPrincipal() admin: Principal) {
    return this.console.health(admin);
  }
}

/** The `days` of a usage query: 1 to 90, 14 when absent; else a 400 naming it. */
function usageDays(days: string | undefined): number {
  const n = days === undefined || days === '' ? 14 : Number(days);
  if (!Number.isInteger(n) || n < 1 || n > 90)
    throw new GatewayError('HTTP_400', `days must be a whole number from 1 to 90; got "${days}"`);
  return n;
}
