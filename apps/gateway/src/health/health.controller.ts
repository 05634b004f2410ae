import type { DatabaseHandle } from '@app/db';
import { CatalogStore, DATABASE, Metrics } from '@app/registry';
import { SandboxedToolRunner } from '@app/meta-tool';
import type { SandboxLayers } from '@app/meta-tool';
import { Controller, Get, HttpCode, Inject, Optional, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    @Inject(DATABASE) private readonly database: DatabaseHandle,
    private readonly metrics: Metrics,
    private readonly store: CatalogStore,
    @Optional()
    @Inject(SandboxedToolRunner)
    private readonly sandbox: SandboxedToolRunner | null = null,
  ) {}

  /** Alive; and which layers of the generated-tool sandbox are active on this machine. */
  @Get('healthz')
  @HttpCode(200)
  health(): { status: 'ok'; sandbox?: SandboxLayers & { enabled: boolean } } {
    if (!this.sandbox) return { status: 'ok' };
    return {
      status: 'ok',
      sandbox: { ...this.sandbox.layers(), enabled: this.sandbox.options.enabled },
    };
  }

  /** Ready when the database answers within a second. */
  @Get('readyz')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const ok = await this.database.ping(1000);
    await reply.status(ok ? 200 : 503).send({
      status: ok ? 'ready' : 'not ready',
      database: ok ? 'up' : 'unreachable',
      catalog_listener: this.store.isListening ? 'up' : 'reconnecting',
    });
  }

  @Get('metrics')
  async metricsText(@Res() reply: FastifyReply): Promise<void> {
    await reply.header('content-type', 'text/plain; version=0.0.4').send(this.metrics.render());
  }
}
