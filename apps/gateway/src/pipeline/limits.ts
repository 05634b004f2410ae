import type { Principal, TenantQuerySlots } from '@app/registry';
import { Metrics, REDIS } from '@app/registry';
import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { gatewayConfig } from '../config/gateway.config';
import type { GatewayConfig } from '../config/gateway.config';
import { TenantSlots } from './tenant-slots';

export { CallAbandoned } from './tenant-slots';

export type LimitName =
  | 'user_calls_per_min'
  | 'tenant_calls_per_min'
  | 'tenant_concurrent_queries'
  | 'proposals_per_author_per_day'
  | 'listen_streams_per_tenant'
  | 'tasks_per_user'
  | 'tasks_per_tenant';

/** A refused request: HTTP 429 with Retry-After (REST), an isError result (MCP). */
export class LimitError extends Error {
  readonly code = 'RATE_LIMITED';
  constructor(
    readonly limit: LimitName,
    readonly retryAfterSeconds: number,
    message: string,
  ) {
    super(message);
  }
}

const WHAT: Record<LimitName, string> = {
  user_calls_per_min: 'your tool calls per minute',
  tenant_calls_per_min: "your organisation's tool calls per minute",
  tenant_concurrent_queries: "your organisation's queries running at once",
  proposals_per_author_per_day: 'your meta_tool proposals per day',
  listen_streams_per_tenant: "your organisation's open subscriptions/listen streams",
  tasks_per_user: 'your tasks still working',
  tasks_per_tenant: "your organisation's tasks still working",
};

/**
 * Fairness limits. Rates are counted in Redis (rate-limiter-flexible), so every replica
 * draws on one budget; while Redis is unreachable an in-memory limiter per instance (the
 * insurance limiter) keeps counting instead of letting everything through. Concurrent
 * queries are counted per instance, because the pool they protect is per instance.
 */
@Injectable()
export class Limits implements TenantQuerySlots {
  private readonly user?: RateLimiterAbstract;
  private readonly tenant?: RateLimiterAbstract;
  private readonly proposals?: RateLimiterAbstract;
  private readonly slots: TenantSlots;
  private readonly refused: (limit: LimitName) => void;

  constructor(
    @Inject(gatewayConfig.KEY) private readonly config: GatewayConfig,
    @Inject(REDIS) private readonly redis: Redis | null,
    metrics: Metrics,
  ) {
    const { limits } = config;
    this.slots = new TenantSlots(() => config.limits.tenantConcurrentQueries);
    this.user = this.limiter('user', limits.userCallsPerMin, 60);
    this.tenant = this.limiter('tenant', limits.tenantCallsPerMin, 60);
    this.proposals = this.limiter('proposals', limits.proposalsPerAuthorPerDay, 86_400);
    metrics.describe('gateway_limit_refusals_total', 'requests refused by a limit, by limit');
    this.refused = (limit) => metrics.inc('gateway_limit_refusals_total', { limit });
  }

  /**
   * Admits one tool call of `principal` or throws LimitError; the returned function ends
   * the call's slot (call it exactly once, when the call is over). At the tenant's concurrency
   * limit the call waits up to LIMIT_TENANT_QUEUE_WAIT_MS for a slot; `signal` aborted while it
   * waits (its client went away) gives it up with CallAbandoned.
   */
  async admitCall(principal: Principal, signal?: AbortSignal): Promise<() => void> {
    if (this.user)
      await this.consume(
        this.user,
        'user_calls_per_min',
        `${principal.tenantId}:${principal.userId}`,
      );
    if (this.tenant) await this.consume(this.tenant, 'tenant_calls_per_min', principal.tenantId);
    const cap = this.config.limits.tenantConcurrentQueries;
    const release = await this.slots.take(
      principal.tenantId,
      this.config.limits.tenantQueueWaitMs,
      signal,
    );
    if (release) return release;
    this.refused('tenant_concurrent_queries');
    throw new LimitError(
      'tenant_concurrent_queries',
      1,
      `${WHAT.tenant_concurrent_queries} are at the limit of ${cap}; retry in 1 second`,
    );
  }

  /**
   * One of the tenant's concurrent-query slots, or undefined at the cap. A tool call takes one
   * (admitCall); a generated tool's data calls beyond the one its call covers take one each.
   */
  tryTake(tenantId: string): (() => void) | undefined {
    return this.slots.tryTake(tenantId);
  }

  released(tenantId: string): Promise<void> {
    return this.slots.released(tenantId);
  }

  /** One meta_tool proposal of `principal` (the seed's cost guard), or LimitError. */
  async admitProposal(principal: Principal): Promise<void> {
    if (this.proposals)
      await this.consume(
        this.proposals,
        'proposals_per_author_per_day',
        `${principal.tenantId}:${principal.userId}`,
      );
  }

  private limiter(name: string, points: number, duration: number): RateLimiterAbstract | undefined {
    if (points === 0) return undefined;
    const keyPrefix = `limit:${name}`;
    const memory = new RateLimiterMemory({ keyPrefix, points, duration });
    if (!this.redis) return memory;
    return new RateLimiterRedis({
      storeClient: this.redis,
      keyPrefix,
      points,
      duration,
      rejectIfRedisNotReady: true,
      insuranceLimiter: memory,
    });
  }

  private async consume(
    limiter: RateLimiterAbstract,
    limit: LimitName,
    key: string,
  ): Promise<void> {
    try {
      await limiter.consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      this.refused(limit);
      const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new LimitError(
        limit,
        seconds,
        `${WHAT[limit]} are over the limit of ${limiter.points}; retry in ${seconds} second${seconds === 1 ? '' : 's'}`,
      );
    }
  }
}
