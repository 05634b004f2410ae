import type Redis from 'ioredis';

/** The caps of tasks (MCP_TASKS_PER_*, MCP_TASK_BYTES_PER_*), per user and per tenant. */
export interface TaskCaps {
  tasksPerUser: number;
  tasksPerTenant: number;
  taskBytesPerUser: number;
  taskBytesPerTenant: number;
}

/** Which cap a task met; `undefined` when it fits. */
export type TaskCap = 'tasks_per_user' | 'tasks_per_tenant' | 'bytes_per_user' | 'bytes_per_tenant';

/** Who a task counts against: its owner (tenant + user) and its tenant. */
export interface TaskScope {
  owner: string;
  tenantId: string;
}

/**
 * What tasks hold, per user and per tenant: tasks still working, and the bytes of kept results
 * (until their TTL). `admit` counts a new task as working unless a cap is met (working tasks,
 * or kept bytes already at their cap); `ended` stops counting it as working; `keep` counts a
 * result's bytes. A task admitted under the byte cap keeps its result, so the bytes kept can
 * pass the cap by at most the results of the tasks working when it was reached (each capped
 * by the task's own result limit); no new task is admitted until they expire below it. A
 * working task whose replica died stops counting at its TTL.
 */
export interface TaskQuota {
  admit(scope: TaskScope, taskId: string, ttlMs: number): Promise<TaskCap | undefined>;
  ended(scope: TaskScope, taskId: string): Promise<void>;
  keep(scope: TaskScope, taskId: string, bytes: number, ttlMs: number): Promise<void>;
}

const CAPS: readonly TaskCap[] = [
  'tasks_per_user',
  'bytes_per_user',
  'tasks_per_tenant',
  'bytes_per_tenant',
];

// KEYS: live, kept, total of the user, then of the tenant. A kept result is a member
// "<taskId>:<bytes>" scored by its expiry; total is their sum, lowered as they expire.
const SWEEP = `
local function sweep(kept, total, now)
  local gone = redis.call('ZRANGEBYSCORE', kept, '-inf', now)
  if #gone > 0 then
    local n = 0
    for _, m in ipairs(gone) do n = n + tonumber(string.match(m, ':(%d+)$')) end
    redis.call('ZREMRANGEBYSCORE', kept, '-inf', now)
    redis.call('DECRBY', total, n)
  end
  return tonumber(redis.call('GET', total) or '0')
end
`;

// ARGV: now, taskId, expiry, ttl, user task cap, user byte cap, tenant task cap, tenant byte cap
const ADMIT = `${SWEEP}
local now = tonumber(ARGV[1])
for i = 0, 1 do
  local live, kept, total = KEYS[i * 3 + 1], KEYS[i * 3 + 2], KEYS[i * 3 + 3]
  redis.call('ZREMRANGEBYSCORE', live, '-inf', now)
  if redis.call('ZCARD', live) >= tonumber(ARGV[5 + i * 2]) then return i * 2 + 1 end
  if sweep(kept, total, now) >= tonumber(ARGV[6 + i * 2]) then return i * 2 + 2 end
end
for i = 0, 1 do
  redis.call('ZADD', KEYS[i * 3 + 1], ARGV[3], ARGV[2])
  redis.call('PEXPIRE', KEYS[i * 3 + 1], ARGV[4])
end
return 0`;

// ARGV: now, member, expiry, ttl, bytes
const KEEP = `${SWEEP}
local now = tonumber(ARGV[1])
local bytes = tonumber(ARGV[5])
for i = 0, 1 do
  sweep(KEYS[i * 3 + 2], KEYS[i * 3 + 3], now)
  local kept, total = KEYS[i * 3 + 2], KEYS[i * 3 + 3]
  redis.call('ZADD', kept, ARGV[3], ARGV[2])
  redis.call('INCRBY', total, bytes)
  redis.call('PEXPIRE', kept, ARGV[4])
  redis.call('PEXPIRE', total, ARGV[4])
end
return 0`;

const keys = ({ owner, tenantId }: TaskScope) => [
  `mcp:tq:live:u:${owner}`,
  `mcp:tq:kept:u:${owner}`,
  `mcp:tq:total:u:${owner}`,
  `mcp:tq:live:t:${tenantId}`,
  `mcp:tq:kept:t:${tenantId}`,
  `mcp:tq:total:t:${tenantId}`,
];

/** Across replicas: sorted sets and counters in Redis, each check and count one script. */
export class RedisTaskQuota implements TaskQuota {
  constructor(
    private readonly redis: Redis,
    private readonly caps: TaskCaps,
  ) {}

  async admit(scope: TaskScope, taskId: string, ttlMs: number): Promise<TaskCap | undefined> {
    const now = Date.now();
    const { tasksPerUser, taskBytesPerUser, tasksPerTenant, taskBytesPerTenant } = this.caps;
    const met = await this.redis.eval(
      ADMIT,
      6,
      ...keys(scope),
      now,
      taskId,
      now + ttlMs,
      ttlMs,
      tasksPerUser,
      taskBytesPerUser,
      tasksPerTenant,
      taskBytesPerTenant,
    );
    return capOf(met);
  }

  async ended(scope: TaskScope, taskId: string): Promise<void> {
    const [liveUser, , , liveTenant] = keys(scope);
    await this.redis.multi().zrem(liveUser, taskId).zrem(liveTenant, taskId).exec();
  }

  async keep(scope: TaskScope, taskId: string, bytes: number, ttlMs: number): Promise<void> {
    const now = Date.now();
    await this.redis.eval(
      KEEP,
      6,
      ...keys(scope),
      now,
      `${taskId}:${bytes}`,
      now + ttlMs,
      ttlMs,
      bytes,
    );
  }
}

function capOf(met: unknown): TaskCap | undefined {
  return typeof met === 'number' && met > 0 ? CAPS[met - 1] : undefined;
}

interface Counted {
  live: Map<string, number>;
  kept: Map<string, { bytes: number; expires: number }>;
}

/** Without Redis (one instance): the same counts in this process. */
export class MemoryTaskQuota implements TaskQuota {
  private readonly scopes = new Map<string, Counted>();

  constructor(private readonly caps: TaskCaps) {}

  async admit(scope: TaskScope, taskId: string, ttlMs: number): Promise<TaskCap | undefined> {
    const now = Date.now();
    const [user, tenant] = this.of(scope, now);
    if (user.live.size >= this.caps.tasksPerUser) return 'tasks_per_user';
    if (bytesOf(user) >= this.caps.taskBytesPerUser) return 'bytes_per_user';
    if (tenant.live.size >= this.caps.tasksPerTenant) return 'tasks_per_tenant';
    if (bytesOf(tenant) >= this.caps.taskBytesPerTenant) return 'bytes_per_tenant';
    for (const counted of [user, tenant]) counted.live.set(taskId, now + ttlMs);
    return undefined;
  }

  async ended(scope: TaskScope, taskId: string): Promise<void> {
    for (const counted of this.of(scope, Date.now())) counted.live.delete(taskId);
    for (const key of [`u:${scope.owner}`, `t:${scope.tenantId}`]) {
      const counted = this.scopes.get(key);
      if (counted?.live.size === 0 && counted.kept.size === 0) this.scopes.delete(key);
    }
  }

  async keep(scope: TaskScope, taskId: string, bytes: number, ttlMs: number): Promise<void> {
    const now = Date.now();
    for (const counted of this.of(scope, now))
      counted.kept.set(taskId, { bytes, expires: now + ttlMs });
  }

  /** The user's and the tenant's counts, expired entries dropped (empty scopes forgotten). */
  private of(scope: TaskScope, now: number): [Counted, Counted] {
    return [this.scope(`u:${scope.owner}`, now), this.scope(`t:${scope.tenantId}`, now)];
  }

  private scope(key: string, now: number): Counted {
    let counted = this.scopes.get(key);
    if (!counted) {
      counted = { live: new Map(), kept: new Map() };
      this.scopes.set(key, counted);
    }
    for (const [id, expires] of counted.live) if (expires <= now) counted.live.delete(id);
    for (const [id, held] of counted.kept) if (held.expires <= now) counted.kept.delete(id);
    return counted;
  }
}

function bytesOf(counted: Counted): number {
  let total = 0;
  for (const held of counted.kept.values()) total += held.bytes;
  return total;
}
