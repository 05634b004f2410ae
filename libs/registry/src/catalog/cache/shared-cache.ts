import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import type Redis from 'ioredis';
import { LRUCache } from 'lru-cache';
import { Metrics } from '../../metrics';
import { REDIS } from '../../tokens';
import { withSpan } from '../../tracing';

/**
 * L2: Redis shared by every instance. Optional and never in the way: without REDIS_URL it
 * is off; when Redis is down every call answers "miss" at once (no offline queue), the
 * outage is logged once and counted, and ioredis reconnects by itself.
 */
@Injectable()
export class SharedCache implements OnModuleDestroy {
  private readonly logger = new Logger('SharedCache');
  private down = false;
  /** keys whose bad value was logged already (a bad value is logged once, not per read) */
  private readonly loggedBad = new LRUCache<string, true>({ max: 1000 });

  constructor(
    private readonly metrics: Metrics,
    @Inject(REDIS) private readonly redis: Redis | null,
  ) {
    metrics.describe('gateway_l2_errors_total', 'Redis (L2) operations that failed');
    metrics.describe('gateway_l2_hits_total', 'L2 reads that found a value');
    metrics.describe('gateway_l2_misses_total', 'L2 reads that found nothing (or Redis was down)');
    metrics.describe(
      'gateway_l2_rejected_total',
      'L2 values refused as corrupt or foreign (deleted, rebuilt from Postgres)',
    );
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

  /**
   * A value read from Redis and parsed by `open` into a typed value. A value `open` refuses
   * (truncated, foreign, of another incarnation) is logged once, deleted and counted, and
   * reads as a miss: the caller rebuilds it from Postgres and writes it again.
   */
  async read<T>(key: string, open: (raw: string) => T | undefined): Promise<T | undefined> {
    const raw = await this.get(key);
    if (raw === undefined) return undefined;
    let value: T | undefined;
    try {
      value = open(raw);
    } catch {
      value = undefined;
    }
    if (value !== undefined) return value;
    this.metrics.inc('gateway_l2_rejected_total');
    if (!this.loggedBad.has(key)) {
      this.loggedBad.set(key, true);
      this.logger.warn(
        `refused a corrupt or foreign L2 value at ${key} (${raw.length} bytes); deleted, rebuilding from Postgres`,
      );
    }
    await this.delete(key);
    return undefined;
  }

  async delete(key: string): Promise<void> {
    if (!this.redis || this.redis.status !== 'ready') return;
    try {
      await this.redis.del(key);
    } catch (err) {
      this.failed(err);
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
