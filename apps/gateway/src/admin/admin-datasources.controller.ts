import { DatasourceAdminService } from '@app/registry';
import type { DatasourceView, Principal } from '@app/registry';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Put,
  Res,
  UseGuards,
} from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthGuard, CurrentPrincipal } from '../auth/auth.guard';
import { ApiAnswer, AUTHED } from '../http/openapi';

/** Tenant data sources (issue #30): the tenant's own Postgres servers, for its admins. */
@ApiTags('admin')
@ApiBearerAuth()
@UseGuards(AuthGuard)
@Controller('v1/admin/datasources')
export class AdminDatasourcesController {
  constructor(private readonly datasources: DatasourceAdminService) {}

  @Get()
  @ApiOperation({ summary: "The tenant's data sources with their health (no password)" })
  @ApiAnswer({ schema: 'DatasourceList' })
  async list(@CurrentPrincipal() admin: Principal) {
    return { datasources: await this.datasources.list(admin) };
  }

  @Get(':name')
  @ApiOperation({ summary: 'One data source: its connection without the password, and health' })
  @ApiAnswer({ schema: 'Datasource', errors: [...AUTHED, 404] })
  get(@CurrentPrincipal() admin: Principal, @Param('name') name: string): Promise<DatasourceView> {
    return this.datasources.get(admin, name);
  }

  @Put(':name')
  @ApiOperation({
    summary:
      'Register or replace a data source; its login must be read-only over everything it reaches (else 422)',
  })
  @ApiAnswer({
    schema: 'Datasource',
    description: 'replaced (201 when created, same body)',
    errors: [...AUTHED, 413, 422],
  })
  async put(
    @CurrentPrincipal() admin: Principal,
    @Param('name') name: string,
    @Body() document: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<DatasourceView> {
    const { created, ...view } = await this.datasources.put(admin, name, document);
    void reply.status(created ? 201 : 200);
    return view;
  }

  @Delete(':name')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a data source (409 while a report uses it)' })
  @ApiAnswer({ schema: null, status: 204, errors: [...AUTHED, 404, 409] })
  async remove(@CurrentPrincipal() admin: Principal, @Param('name') name: string): Promise<void> {
    await this.datasources.delete(admin, name);
  }
}
