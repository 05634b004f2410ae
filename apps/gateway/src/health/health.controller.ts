import type { DatabaseHandle } from '@app/db';
import { DATABASE } from '@app/registry';
import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { sql } from 'kysely';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(@Inject(DATABASE) private readonly database: DatabaseHandle) {}

  @Get('healthz')
  @HttpCode(200)
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Ready when the database answers within a second. */
  @Get('readyz')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const ok = await Promise.race([
      sql`SELECT 1`.execute(this.database.db).then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1000).unref()),
    ]);
    await reply
      .status(ok ? 200 : 503)
      .send({ status: ok ? 'ready' : 'not ready', database: ok ? 'up' : 'unreachable' });
  }
}
