import { ReportAdminService } from '@app/registry';
import type { AdminReportView, Principal } from '@app/registry';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Put,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthGuard, CurrentPrincipal } from '../auth/auth.guard';

@ApiTags('admin')
@ApiBearerAuth()
@UseGuards(AuthGuard)
@Controller('v1/admin/reports')
export class AdminReportsController {
  constructor(private readonly reports: ReportAdminService) {}

  @Get()
  @ApiOperation({ summary: "Every report of the admin's tenant with its serving status" })
  async list(@CurrentPrincipal() admin: Principal) {
    return { reports: await this.reports.list(admin) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One report: the document PUT accepts, and its status' })
  get(@CurrentPrincipal() admin: Principal, @Param('id') id: string): Promise<AdminReportView> {
    return this.reports.get(admin, id);
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Create or replace a report (validated; a rejected write changes nothing: 422)',
  })
  @ApiBody({
    schema: {
      type: 'object',
      description: 'name, description, sql_template, category, status, filters[], fields[]',
    },
  })
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

  @Delete(':id')
  @HttpCode(204)
  async remove(@CurrentPrincipal() admin: Principal, @Param('id') id: string): Promise<void> {
    await this.reports.delete(admin, id);
  }

  @Post(':id/disable')
  @HttpCode(200)
  disable(@CurrentPrincipal() admin: Principal, @Param('id') id: string): Promise<AdminReportView> {
    return this.reports.setStatus(admin, id, 'disabled');
  }

  @Post(':id/enable')
  @HttpCode(200)
  enable(@CurrentPrincipal() admin: Principal, @Param('id') id: string): Promise<AdminReportView> {
    return this.reports.setStatus(admin, id, 'active');
  }
}
