import { CatalogStore } from '@app/registry';
import type { Principal } from '@app/registry';
import { Controller, Get, Injectable, Req, Res, UseGuards } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { AuthGuard, CurrentPrincipal } from '../auth/auth.guard';
import { ConsoleAdminService } from './console-admin.service';
import { ApiAnswer } from '../http/openapi';

/** changes within this window become one event */
const COALESCE_MS = 50;
const HEARTBEAT_MS = 15_000;

/**
 * Server-sent events for the console: `event: catalog` with the tenant's catalog version on
 * connect and after every change of that tenant's catalog (any instance, any path: the
 * admin API or plain SQL, through LISTEN/NOTIFY). Other tenants' changes are not sent.
 */
@Injectable()
export class CatalogEventStreams implements OnModuleDestroy {
  private readonly open = new Set<() => void>();

  constructor(private readonly store: CatalogStore) {}

  attach(tenantId: string, version: number, raw: ServerResponse, closed: Promise<void>): void {
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    const send = (data: object) => raw.write(`event: catalog\ndata: ${JSON.stringify(data)}\n\n`);
    send({ tenant: tenantId, version });
    let pending: NodeJS.Timeout | undefined;
    const off = this.store.onChange((tenant) => {
      if ((tenant !== tenantId && tenant !== '*') || pending) return;
      pending = setTimeout(() => {
        pending = undefined;
        this.store.catalog(tenantId, { verify: true }).then(
          (catalog) => send({ tenant: tenantId, version: catalog.version }),
          () => send({ tenant: tenantId, version: null, unavailable: true }),
        );
      }, COALESCE_MS);
    });
    const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
    const close = () => {
      if (!this.open.delete(close)) return;
      off();
      clearInterval(heartbeat);
      clearTimeout(pending);
      raw.end();
    };
    this.open.add(close);
    void closed.then(close);
  }

  get size(): number {
    return this.open.size;
  }

  /** Open streams would keep the HTTP server from closing. */
  onModuleDestroy(): void {
    for (const close of [...this.open]) close();
  }
}

@ApiTags('admin console')
@ApiBearerAuth()
@UseGuards(AuthGuard)
@Controller('v1/admin/console')
export class CatalogEventsController {
  constructor(
    private readonly console: ConsoleAdminService,
    private readonly streams: CatalogEventStreams,
  ) {}

  @Get('events')
  @ApiOperation({
    summary:
      "Server-sent events: the admin's tenant catalog version, on connect and after every change",
  })
  @ApiAnswer({ schema: 'EventStream', contentType: 'text/event-stream' })
  async events(
    @CurrentPrincipal() admin: Principal,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const catalog = await this.console.adminCatalog(admin); // refusals answer as JSON errors
    reply.hijack();
    const closed = new Promise<void>((resolve) => request.raw.once('close', () => resolve()));
    this.streams.attach(admin.tenantId, catalog.version, reply.raw, closed);
  }
}
