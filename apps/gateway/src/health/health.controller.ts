import { timingSafeEqual } from 'node:crypto';
import type { DatabaseHandle } from '@app/db';
import { CatalogStore, DATABASE, Metrics, REDIS } from '@app/registry';
import { SandboxedToolRunner } from '@app/meta-tool';
import type { SandboxLayers } from '@app/meta-tool';
import { Controller, Get, HttpCode, Inject, Optional, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Redis from 'ioredis';
import { gatewayConfig } from '../config/gateway.config';
import type { GatewayConfig } from '../config/gateway.config';
import { errorBody, httpStatus } from '../errors';
import { RequestPipeline } from '../pipeline/request-pipeline';
import { ApiAnswer } from '../http/openapi';
import { schemaRef } from '../http/openapi-schemas';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    @Inject(DATABASE) private readonly database: DatabaseHandle,
    @Inject(REDIS) private readonly redis: Redis | null,
    private readonly metrics: Metrics,
    private readonly store: CatalogStore,
    private readonly pipeline: RequestPipeline,
    @Inject(gatewayConfig.KEY) private readonly config: GatewayConfig,
    @Optional()
    @Inject(SandboxedToolRunner)
    private readonly sandbox: SandboxedToolRunner | null = null,
  ) {
    registerHealthGauges(metrics, database, redis);
  }

  /** Alive; and which layers of the generated-tool sandbox are active on this machine. */
  @Get('healthz')
  @HttpCode(200)
  @ApiOperation({ summary: 'Alive, and the generated-tool sandbox layers active here' })
  @ApiAnswer({ schema: 'Health', errors: [] })
  health(): { status: 'ok'; sandbox?: SandboxLayers & { enabled: boolean } } {
    if (!this.sandbox) return { status: 'ok' };
    return {
      status: 'ok',
      sandbox: { ...this.sandbox.layers(), enabled: this.sandbox.options.enabled },
    };
  }

  /**
   * Ready when the database answers `SELECT 1` (on a connection of its own, not behind
   * queued report queries) within 2 s, under HAProxy's 3 s check timeout, and shutdown has
   * not begun. Slow is not down: an unreachable database refuses or resets at once. Redis
   * and the catalog listener are reported, not required: without them the gateway serves
   * in its documented degraded modes (docs/faults.md).
   */
  @Get('readyz')
  @ApiOperation({ summary: 'Ready: the database answers and shutdown has not begun' })
  @ApiAnswer({ schema: 'Readiness', errors: [] })
  @ApiResponse({ status: 503, description: 'not ready', schema: schemaRef('Readiness') })
  async ready(@Res() reply: FastifyReply): Promise<void> {
    if (this.pipeline.isDraining) {
      await reply.status(503).send({ status: 'not ready', reason: 'shutting down' });
      return;
    }
    const ok = await this.database.ping(2000);
    await reply.status(ok ? 200 : 503).send({
      status: ok ? 'ready' : 'not ready',
      database: ok ? 'up' : 'unreachable',
      catalog_listener: this.store.isListening ? 'up' : 'reconnecting',
      redis: redisState(this.redis),
    });
  }

  /** Prometheus text; behind METRICS_TOKEN when set; on METRICS_PORT only when that is set. */
  @Get('metrics')
  @ApiOperation({ summary: 'Prometheus metrics (behind METRICS_TOKEN when set)' })
  @ApiAnswer({ schema: 'MetricsText', contentType: 'text/plain', errors: [401, 404] })
  async metricsText(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const { enabled, port } = this.config.metrics;
    if (!enabled || port !== undefined) {
      const message = enabled
        ? 'metrics are served on METRICS_PORT'
        : 'metrics are off (METRICS_ENABLED=0)';
      await reply.status(httpStatus('HTTP_404')).send(errorBody('HTTP_404', message));
      return;
    }
    if (!metricsAllowed(this.config.metrics.token, request.headers.authorization)) {
      await reply
        .status(httpStatus('UNAUTHENTICATED'))
        .header('www-authenticate', 'Bearer')
        .send(errorBody('UNAUTHENTICATED', 'send Authorization: Bearer <METRICS_TOKEN>'));
      return;
    }
    await reply.header('content-type', this.metrics.contentType).send(await this.metrics.render());
  }
}

/** Redis as /readyz reports it: not configured, connected, or (re)connecting. */
function redisState(redis: Redis | null): 'off' | 'up' | 'reconnecting' {
  if (!redis) return 'off';
  return redis.status === 'ready' ? 'up' : 'reconnecting';
}

/** Whether a scrape may read /metrics: no token configured, or the right bearer token. */
export function metricsAllowed(
  token: string | undefined,
  authorization: string | undefined,
): boolean {
  if (token === undefined) return true;
  const given = Buffer.from(/^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1] ?? '');
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** Gauges read at scrape time: pool use, database and Redis reachability. */
function registerHealthGauges(
  metrics: Metrics,
  database: DatabaseHandle,
  redis: Redis | null,
): void {
  metrics.gaugeCollected(
    'gateway_db_pool_connections',
    'database pool connections, by state (total, idle, waiting clients, max)',
    (set) => {
      const stats = database.poolStats?.();
      if (!stats) return;
      set(stats.total, { state: 'total' });
      set(stats.idle, { state: 'idle' });
      set(stats.waiting, { state: 'waiting' });
      set(stats.max, { state: 'max' });
    },
    ['state'],
  );
  metrics.gaugeCollected(
    'gateway_postgres_up',
    '1 when the database answers SELECT 1 within 500 ms',
    async (set) => set((await database.ping(500)) ? 1 : 0),
  );
  metrics.gaugeCollected(
    'gateway_redis_up',
    '1 when the Redis connection is ready (absent without REDIS_URL)',
    (set) => {
      if (redis) set(redis.status === 'ready' ? 1 : 0);
    },
  );
}
