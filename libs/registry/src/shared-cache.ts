import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import type Redis from 'ioredis';
import { Metrics } from './metrics';
import { REDIS } from './tokens';
import { withSpan } from './tracing';

/**
 * L2: Redis shared by every instance. Optional and never in the way: without REDIS_URL it
 * is off; when Redis is down every call answers "miss" at once (no offline queue), the
 * outage is logged once and counted, and ioredis reconnects by itself.
 */
@Injectable()
export class SharedCache implements OnModuleDestroy {
  private readonly logger = new Logger('SharedCache');
  private down = false;

  constructor(
    private readonly metrics: Metrics,
    @Inject(REDIS) private readonly redis: Redis | null,
  ) {
    metrics.describe('gateway_l2_errors_total', 'Redis (L2) operations that failed');
    metrics.describe('gateway_l2_hits_total', 'L2 reads that found a value');
    metrics.describe('gateway_l2_misses_total', 'L2 reads that found nothing (or Redis was down)');
    redis?.on('ready', () => {
      if (this.down) this.logger.log('Redis is back; the shared cache is on again');
      this.down = false;
    });
    redis?.on('error', (err: Error) => this.failed(err));
  }

  get enabled(): boolean {
    return this.redis !== null;
  }

  async get(key: string): Promise<string | undefined> {
    if (!this.redis) return this.miss();
    if (this.redis.status !== 'ready') {
      this.failed(new Error(`the Redis connection is ${this.redis.status}`));
      return this.miss();
    }
    try {
      const redis = this.redis;
      const value = await withSpan('l2.get', {}, () => redis.get(key));
      if (value === null) return this.miss();
      this.metrics.inc('gateway_l2_hits_total');
      return value;
    } catch (err) {
      this.failed(err);
      return this.miss();
    }
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    if (!this.redis) return;
    if (this.redis.status !== 'ready') {
      this.failed(new Error(`the Redis connection is ${this.redis.status}`));
      return;
    }
    try {
      await this.redis.set(key, value, 'EX', ttlSeconds);
    } catch (err) {
      this.failed(err);
    }
  }

  private miss(): undefined {
    this.metrics.inc('gateway_l2_misses_total');
    return undefined;
  }

  private failed(err: unknown): void {
    this.metrics.inc('gateway_l2_errors_total');
    if (this.down) return;
    this.down = true;
    this.logger.warn(
      `Redis unavailable, serving from memory and Postgres until it is back: ${err instanceof Error ? err.message : String(err)}`,
    );
  }

  async onModuleDestroy(): Promise<void> {
    this.redis?.disconnect();
  }
}
