import { GeneratedToolControls } from '@app/meta-tool';
import type { GeneratedToolView } from '@app/meta-tool';
import type { Principal } from '@app/registry';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthGuard, CurrentPrincipal } from '../auth/auth.guard';
import { ApiAnswer, AUTHED } from '../http/openapi';

/**
 * Operator controls over generated tools (roles tool_reviewer or admin of the tenant). Every
 * change bumps the tenant's catalog version: every instance drops the tool from its lists at
 * once, and MCP sessions are told their list changed.
 */
@ApiTags('meta-tool')
@ApiBearerAuth()
@UseGuards(AuthGuard)
@Controller('v1/admin/generated-tools')
export class GeneratedToolsController {
  constructor(private readonly controls: GeneratedToolControls) {}

  @Get()
  @ApiOperation({
    summary:
      'Generated tools of your tenant: state, author, approver, smoke-tested or not, calls, error rate, last error',
  })
  @ApiAnswer({ schema: 'GeneratedToolList' })
  list(
    @CurrentPrincipal() operator: Principal,
  ): Promise<{ meta_tool_enabled: boolean; tools: GeneratedToolView[] }> {
    return this.controls.listTools(operator);
  }

  @Post(':name/disable')
  @HttpCode(200)
  @ApiOperation({ summary: 'Stop serving a generated tool (kept, can be enabled again)' })
  @ApiAnswer({ schema: 'JsonObject', errors: [...AUTHED, 404] })
  disable(@CurrentPrincipal() operator: Principal, @Param('name') name: string) {
    return this.controls.setToolStatus(operator, name, 'disabled');
  }

  @Post(':name/enable')
  @HttpCode(200)
  @ApiOperation({ summary: 'Serve a disabled generated tool again' })
  @ApiAnswer({ schema: 'JsonObject', errors: [...AUTHED, 404] })
  enable(@CurrentPrincipal() operator: Principal, @Param('name') name: string) {
    return this.controls.setToolStatus(operator, name, 'active');
  }

  @Delete(':name')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a generated tool (row and file; the audit log keeps the whole record)',
  })
  @ApiAnswer({ schema: null, status: 204, errors: [...AUTHED, 404] })
  async remove(
    @CurrentPrincipal() operator: Principal,
    @Param('name') name: string,
  ): Promise<void> {
    await this.controls.deleteTool(operator, name);
  }

  @Post('meta-tool/:state')
  @HttpCode(200)
  @ApiOperation({ summary: 'Switch meta_tool on or off for your tenant (state: enable|disable)' })
  @ApiAnswer({ schema: 'JsonObject', body: 'JsonObject', bodyRequired: false })
  setTenant(
    @CurrentPrincipal() operator: Principal,
    @Param('state') state: string,
    @Body() _body: unknown,
  ) {
    return this.controls.setTenantEnabled(operator, state === 'enable');
  }
}
