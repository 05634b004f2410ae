import { randomUUID } from 'node:crypto';
import { cancelTraceStatements } from '@app/db';
import type { DatabaseHandle } from '@app/db';
import { CatalogService, DATABASE, Metrics, REDIS } from '@app/registry';
import type { Principal } from '@app/registry';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import type Redis from 'ioredis';
import { gatewayConfig } from '../../config/gateway.config';
import type { GatewayConfig } from '../../config/gateway.config';
import { currentRequest } from '../../pipeline/request-context';
import { ownerOf } from '../shared/mcp-owner';
import { TaskStatusChannel } from './mcp-task-status';
import { MemoryTaskQuota, RedisTaskQuota } from './mcp-task-quota';
import type { TaskCap, TaskQuota, TaskScope } from './mcp-task-quota';
import { MemoryTaskStore, RedisTaskStore } from './mcp-task-store';
import type { TaskRecord, TaskStore } from './mcp-task-store';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** how often a client should poll a working task */
const POLL_INTERVAL_MS = 1000;
/** the largest result kept for a task (a report page is capped far below this) */
const MAX_RESULT_BYTES = 4 * 1024 * 1024;
/** a cancel signals the call's active statements until none is left, at most this often */
const CANCEL_ATTEMPTS = 20;
const CANCEL_RETRY_MS = 100;

/** A request's client capabilities declare the Tasks extension. */
export function declaresTasks(params: unknown): boolean {
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const caps = meta?.['io.modelcontextprotocol/clientCapabilities'] as
    { extensions?: Record<string, unknown> } | undefined;
  const settings = caps?.extensions?.[TASKS_EXTENSION];
  return typeof settings === 'object' && settings !== null;
}

/**
 * The Tasks extension for report calls (revision 2026-07-28): a call from a client that
 * declares the extension and is still running after MCP_TASK_AFTER_MS is answered with a task;
 * the call goes on on this replica and its outcome is stored (Redis with the task's TTL, so
 * any replica answers tasks/get; in memory without Redis). Every read checks the caller: a
 * task of another user or tenant is "not found", like an unknown one. A cancel marks the task
 * cancelled (a late result never overwrites it) and cancels the report query's statement
 * (pg_cancel_backend of the sessions running under the call's trace id).
 *
 * Tasks are capped per user and per tenant (issue 38, TaskQuota): past MCP_TASKS_PER_* working
 * tasks, or with MCP_TASK_BYTES_PER_* of results already kept, a call is answered synchronously
 * (no task). A task is readable only while its owner may still call the tool it ran.
 */
@Injectable()
export class McpTasks implements OnModuleDestroy {
  private readonly logger = new Logger('McpTasks');
  private readonly store: TaskStore;
  private readonly quota: TaskQuota;
  private readonly status: TaskStatusChannel;

  constructor(
    @Inject(gatewayConfig.KEY) private readonly config: GatewayConfig,
    @Inject(REDIS) redis: Redis | null,
    @Inject(DATABASE) private readonly database: DatabaseHandle,
    private readonly catalog: CatalogService,
    private readonly metrics: Metrics,
  ) {
    this.store = redis ? new RedisTaskStore(redis) : new MemoryTaskStore();
    this.quota = redis ? new RedisTaskQuota(redis, config.mcp) : new MemoryTaskQuota(config.mcp);
    metrics.describe(
      'gateway_mcp_task_capped_total',
      'task calls answered synchronously, or results not kept, at a task cap, by cap',
    );
    this.status = new TaskStatusChannel(redis);
  }

  /** Calls `listener` with the id of each task whose status changed, on any replica. */
  onStatus(listener: (taskId: string) => void): () => void {
    return this.status.onStatus(listener);
  }

  onModuleDestroy(): void {
    this.status.close();
  }

  private announce(taskId: string): void {
    this.status.announce(taskId);
  }

  /**
   * The call's result if it ends within MCP_TASK_AFTER_MS, else the task that will hold it;
   * `immediately` (a report that declares `run_as_task`): the task at once, without the wait.
   * `tool`: the tool the task runs (a report), which its owner must still be able to call to
   * read it. At a task cap the call is answered synchronously, whatever its length.
   */
  async run<T extends Record<string, unknown>>(
    principal: Principal,
    tool: string,
    call: Promise<T>,
    { immediately = false } = {},
  ): Promise<{ result: T } | { task: TaskRecord }> {
    const settled = call.then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    const after = immediately ? 0 : this.config.mcp.taskAfterMs;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), after);
    });
    // 0: always a task, whatever the call's speed
    const first = after === 0 ? 'late' : await Promise.race([settled, late]);
    clearTimeout(timer);
    const now = new Date().toISOString();
    const task: TaskRecord = {
      taskId: randomUUID(),
      owner: ownerOf(principal),
      tool,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.config.mcp.taskTtlMs,
      traceId: currentRequest()?.traceId,
    };
    const scope = scopeOf(principal);
    const capped =
      first === 'late'
        ? await this.quota.admit(scope, task.taskId, task.ttlMs).catch(() => 'unavailable' as const)
        : undefined;
    if (first !== 'late' || capped !== undefined) {
      if (capped !== undefined && capped !== 'unavailable') this.capped(capped);
      const outcome = first === 'late' ? await settled : first;
      if ('error' in outcome) throw outcome.error;
      return { result: outcome.result };
    }
    try {
      await this.store.create(task);
    } catch (err) {
      await this.quota.ended(scope, task.taskId).catch(() => undefined);
      throw err;
    }
    void settled.then((outcome) => this.finish(task, scope, outcome));
    return { task };
  }

  /**
   * The caller's task, or undefined (unknown, expired, someone else's, or one whose tool the
   * caller may no longer call: the same).
   */
  async get(principal: Principal, taskId: unknown): Promise<TaskRecord | undefined> {
    if (typeof taskId !== 'string' || taskId === '') return undefined;
    const task = await this.store.get(taskId);
    if (!task || task.owner !== ownerOf(principal)) return undefined;
    if (task.tool !== undefined && !(await this.mayCall(principal, task.tool))) return undefined;
    return task;
  }

  private async mayCall(principal: Principal, tool: string): Promise<boolean> {
    if (this.catalog.cachedResolve(principal, tool)) return true;
    return this.catalog.resolve(principal, tool).then(
      () => true,
      () => false,
    );
  }

  private capped(cap: TaskCap): void {
    this.metrics.inc('gateway_mcp_task_capped_total', { cap });
  }

  /** Cancels the caller's working task and its query; false when there is no such task. */
  async cancel(principal: Principal, taskId: unknown): Promise<boolean> {
    const task = await this.get(principal, taskId);
    if (!task) return false;
    if (task.status !== 'working') return true; // terminal: the same empty acknowledgement
    const cancelled = { ...task, status: 'cancelled' as const, lastUpdatedAt: now() };
    if (!(await this.store.settle(cancelled))) return true;
    await this.quota.ended(scopeOf(principal), task.taskId).catch(() => undefined);
    this.announce(task.taskId);
    if (task.traceId && this.database.kind === 'postgres')
      await this.cancelStatements(task.taskId, task.traceId);
    return true;
  }

  /**
   * pg_cancel_backend for the statements running under the call's trace id, again while one
   * is still active: a cancel that lands between the session setup and the report query (or
   * before a parallel worker starts) would otherwise miss the query itself.
   */
  private async cancelStatements(taskId: string, traceId: string): Promise<void> {
    let total = 0;
    for (let attempt = 0; attempt < CANCEL_ATTEMPTS; attempt++) {
      const n = await cancelTraceStatements(this.database.db, traceId).catch(() => 0);
      total += n;
      if (n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, CANCEL_RETRY_MS));
    }
    this.logger.log(`task ${taskId} cancelled (${total} pg_cancel_backend signal(s))`);
  }

  /** The shape a client polls: the task, and its result or error once terminal. */
  static wire(task: TaskRecord): Record<string, unknown> {
    return {
      taskId: task.taskId,
      status: task.status,
      createdAt: task.createdAt,
      lastUpdatedAt: task.lastUpdatedAt,
      ttlMs: task.ttlMs,
      pollIntervalMs: POLL_INTERVAL_MS,
      ...(task.status === 'completed' && task.result ? { result: task.result } : {}),
      ...(task.status === 'failed' && task.error ? { error: task.error } : {}),
    };
  }

  private async finish(
    task: TaskRecord,
    scope: TaskScope,
    outcome: { result: Record<string, unknown> } | { error: unknown },
  ): Promise<void> {
    await this.quota.ended(scope, task.taskId).catch(() => undefined);
    const done: TaskRecord = { ...task, lastUpdatedAt: now() };
    if ('result' in outcome && JSON.stringify(outcome.result).length <= MAX_RESULT_BYTES) {
      done.status = 'completed';
      done.result = { ...outcome.result, resultType: 'complete' };
    } else {
      done.status = 'failed';
      done.error =
        'result' in outcome
          ? { code: -32603, message: 'the result is too large to keep for a task' }
          : rpcErrorOf(outcome.error);
    }
    const bytes = Buffer.byteLength(JSON.stringify(done));
    await this.quota.keep(scope, task.taskId, bytes, task.ttlMs).catch(() => undefined);
    const stored = await this.store.settle(done).catch((err: unknown) => {
      this.logger.warn(
        `could not store the outcome of task ${task.taskId}: ${err instanceof Error ? err.message : String(err)}`,
      );
      return false;
    });
    if (stored) this.announce(task.taskId);
  }
}

function scopeOf(principal: Principal): TaskScope {
  return { owner: ownerOf(principal), tenantId: principal.tenantId };
}

function now(): string {
  return new Date().toISOString();
}

function rpcErrorOf(err: unknown): { code: number; message: string } {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'number' && err instanceof Error) return { code, message: err.message };
  return { code: -32603, message: 'internal error; the call was not completed' };
}
