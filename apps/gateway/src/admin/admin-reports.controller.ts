import { ReportAdminService } from '@app/registry';
import type { AdminReportView, Principal } from '@app/registry';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Put,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthGuard, CurrentPrincipal } from '../auth/auth.guard';
import { ApiAnswer, AUTHED } from '../http/openapi';
import { schemaRef } from '../http/openapi-schemas';

@ApiTags('admin')
@ApiBearerAuth()
@UseGuards(AuthGuard)
@Controller('v1/admin/reports')
export class AdminReportsController {
  constructor(private readonly reports: ReportAdminService) {}

  @Get()
  @ApiOperation({ summary: "Every report of the admin's tenant with its serving status" })
  @ApiAnswer({ schema: 'AdminReportList' })
  async list(@CurrentPrincipal() admin: Principal) {
    return { reports: await this.reports.list(admin) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One report: the document PUT accepts, and its status' })
  @ApiAnswer({ schema: 'AdminReport', errors: [...AUTHED, 404] })
  get(@CurrentPrincipal() admin: Principal, @Param('id') id: string): Promise<AdminReportView> {
    return this.reports.get(admin, id);
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Create or replace a report (validated; a rejected write changes nothing: 422)',
  })
  @ApiAnswer({ schema: 'AdminReport', body: 'ReportDocument', errors: [...AUTHED, 413, 422] })
  @ApiResponse({ status: 201, description: 'created', schema: schemaRef('AdminReport') })
  async put(
    @CurrentPrincipal() admin: Principal,
    @Param('id') id: string,
    @Body() document: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<AdminReportView> {
    const { created, ...view } = await this.reports.put(admin, id, document);
    void reply.status(created ? 201 : 200);
    return view;
  }

  @Patch(':id')
  @ApiOperation({
    summary:
      'Change some members of a report (JSON Merge Patch, RFC 7396): members left out stay as stored, null resets an optional one; the merged report is judged as PUT judges it (422 changes nothing)',
  })
  @ApiAnswer({
    schema: 'AdminReport',
    body: 'ReportPatch',
    errors: [...AUTHED, 404, 409, 413, 422],
  })
  patch(
    @CurrentPrincipal() admin: Principal,
    @Param('id') id: string,
    @Body() patch: unknown,
  ): Promise<AdminReportView> {
    return this.reports.patch(admin, id, patch);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a report (its tool leaves every list at once)' })
  @ApiAnswer({ schema: null, status: 204, errors: [...AUTHED, 404] })
  async remove(@CurrentPrincipal() admin: Principal, @Param('id') id: string): Promise<void> {
    await this.reports.delete(admin, id);
  }

  @Post(':id/disable')
  @HttpCode(200)
  @ApiOperation({ summary: 'Stop serving a report (kept, can be enabled again)' })
  @ApiAnswer({ schema: 'AdminReport', errors: [...AUTHED, 404] })
  disable(@CurrentPrincipal() admin: Principal, @Param('id') id: string): Promise<AdminReportView> {
    return this.reports.setStatus(admin, id, 'disabled');
  }

  @Post(':id/enable')
  @HttpCode(200)
  @ApiOperation({ summary: 'Serve a disabled report again' })
  @ApiAnswer({ schema: 'AdminReport', errors: [...AUTHED, 404, 422] })
  enable(@CurrentPrincipal() admin: Principal, @Param('id') id: string): Promise<AdminReportView> {
    return this.reports.setStatus(admin, id, 'active');
  }
}
