import type Redis from 'ioredis';

export type TaskStatus = 'working' | 'completed' | 'failed' | 'cancelled';

/** A task of the Tasks extension: what any replica needs to answer tasks/get and tasks/cancel. */
export interface TaskRecord {
  readonly taskId: string;
  /** tenant + user of the caller who started it: no one else sees it */
  readonly owner: string;
  /** the tool the task runs: its owner reads the task only while allowed to call it */
  readonly tool?: string;
  status: TaskStatus;
  readonly createdAt: string;
  lastUpdatedAt: string;
  readonly ttlMs: number;
  /** the trace id the report query runs under (its application_name), for the cancel */
  readonly traceId?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** Where task state lives: Redis (any replica, with the task's TTL) or this process. */
export interface TaskStore {
  create(task: TaskRecord): Promise<void>;
  get(taskId: string): Promise<TaskRecord | undefined>;
  /** Replaces a task that is still `working`; false when it was not (already terminal, or gone). */
  settle(task: TaskRecord): Promise<boolean>;
}

const STATUSES: readonly string[] = ['working', 'completed', 'failed', 'cancelled'];

/** A stored task as read back (a Redis value is untrusted): the record, or undefined. */
export function parseTask(raw: string | null | undefined): TaskRecord | undefined {
  if (!raw) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const t = value as Record<string, unknown>;
  const strings = ['taskId', 'owner', 'createdAt', 'lastUpdatedAt'].every(
    (k) => typeof t[k] === 'string',
  );
  if (!strings || !STATUSES.includes(t.status as string) || typeof t.ttlMs !== 'number')
    return undefined;
  if (t.traceId !== undefined && typeof t.traceId !== 'string') return undefined;
  if (t.tool !== undefined && typeof t.tool !== 'string') return undefined;
  if (t.result !== undefined && (typeof t.result !== 'object' || t.result === null))
    return undefined;
  const error = t.error as { code?: unknown; message?: unknown } | undefined;
  if (error !== undefined && (typeof error.code !== 'number' || typeof error.message !== 'string'))
    return undefined;
  return value as TaskRecord;
}

const key = (taskId: string) => `mcp:t:${taskId}`;

// replaces the value only while the stored task is still working (a cancel wins over a late
// result, and a result never revives a cancelled task)
const SETTLE = `
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
if cjson.decode(v)['status'] ~= 'working' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

export class RedisTaskStore implements TaskStore {
  constructor(private readonly redis: Redis) {}

  async create(task: TaskRecord): Promise<void> {
    await this.redis.set(key(task.taskId), JSON.stringify(task), 'PX', task.ttlMs);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return parseTask(await this.redis.get(key(taskId)));
  }

  async settle(task: TaskRecord): Promise<boolean> {
    const done = await this.redis.eval(
      SETTLE,
      1,
      key(task.taskId),
      JSON.stringify(task),
      task.ttlMs,
    );
    return done === 1;
  }
}

/** Without Redis (one instance): tasks live in this process until their TTL. */
export class MemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, { raw: string; expires: number }>();

  async create(task: TaskRecord): Promise<void> {
    this.sweep();
    this.tasks.set(task.taskId, { raw: JSON.stringify(task), expires: Date.now() + task.ttlMs });
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const held = this.tasks.get(taskId);
    if (!held || held.expires <= Date.now()) return undefined;
    return parseTask(held.raw);
  }

  async settle(task: TaskRecord): Promise<boolean> {
    const current = await this.get(task.taskId);
    if (current?.status !== 'working') return false;
    await this.create(task);
    return true;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, held] of this.tasks) if (held.expires <= now) this.tasks.delete(id);
  }
}
