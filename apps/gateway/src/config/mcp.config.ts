import { ConfigError, integer } from './env';
import type { Env } from './env';

/** MCP over Streamable HTTP: MCP_*, TOOL_TEXT_MAX_BYTES. */
export interface McpSettings {
  sessionIdleMs: number;
  /** idle limit of a session with no notification stream open (clients that never close) */
  streamlessIdleMs: number;
  maxSessionsPerUser: number;
  /** the most UTF-8 bytes of rows a tool result's text content (what the model reads) holds */
  textMaxBytes: number;
  /** browser origins allowed to call /mcp (requests without Origin are not browsers) */
  allowedOrigins: string[];
  /**
   * `ttlMs` of a modern (2026-07-28) tools/list result: how long a client may reuse the list
   * without asking again. Longer saves list requests; a client that does not listen for
   * changes may keep offering a removed tool (its call then fails) for up to this long.
   */
  listTtlMs: number;
  /**
   * Tasks extension: a report call from a client that declares it and is still running after
   * this long is answered with a task to poll (0: every such call becomes a task).
   */
  taskAfterMs: number;
  /** how long a task's state and result are kept after its last change */
  taskTtlMs: number;
  /** open `subscriptions/listen` streams of one user on this instance (past it: the oldest ends) */
  listenPerUser: number;
  /** open `subscriptions/listen` streams of one tenant on this instance (past it: refused) */
  listenPerTenant: number;
  /** tasks of one user still working at once (past it: the call is answered synchronously) */
  tasksPerUser: number;
  /** tasks of one tenant still working at once */
  tasksPerTenant: number;
  /** bytes of kept task results of one user (past it: the task fails with a clear error) */
  taskBytesPerUser: number;
  /** bytes of kept task results of one tenant */
  taskBytesPerTenant: number;
}

/** `maxConnections`: LIMIT_CONNECTIONS, of which a tenant's streams take a quarter by default */
export function mcpSettings(env: Env, maxConnections = 2048): McpSettings {
  const listenPerUser = integer(env, 'MCP_LISTEN_PER_USER', 8, 1, 10_000);
  const tasksPerUser = integer(env, 'MCP_TASKS_PER_USER', 20, 1, 100_000);
  const taskBytesPerUser = integer(
    env,
    'MCP_TASK_BYTES_PER_USER',
    8 * 1024 * 1024,
    64 * 1024,
    4 * 1024 * 1024 * 1024,
  );
  return {
    sessionIdleMs: integer(env, 'MCP_SESSION_IDLE_MS', 30 * 60_000, 1000, 24 * 3600_000),
    streamlessIdleMs: integer(
      env,
      'MCP_SESSION_STREAMLESS_IDLE_MS',
      5 * 60_000,
      1000,
      24 * 3600_000,
    ),
    maxSessionsPerUser: integer(env, 'MCP_MAX_SESSIONS_PER_USER', 10, 1, 1000),
    textMaxBytes: integer(env, 'TOOL_TEXT_MAX_BYTES', 64 * 1024, 2048, 16 * 1024 * 1024),
    allowedOrigins: origins(env),
    listTtlMs: integer(env, 'MCP_LIST_TTL_MS', 60_000, 0, 24 * 3600_000),
    taskAfterMs: integer(env, 'MCP_TASK_AFTER_MS', 2000, 0, 3600_000),
    taskTtlMs: integer(env, 'MCP_TASK_TTL_MS', 3600_000, 1000, 7 * 24 * 3600_000),
    listenPerUser,
    listenPerTenant: integer(
      env,
      'MCP_LISTEN_PER_TENANT',
      Math.max(listenPerUser, Math.floor(maxConnections / 4)),
      1,
      1_000_000,
    ),
    tasksPerUser,
    tasksPerTenant: integer(env, 'MCP_TASKS_PER_TENANT', 200, 1, 1_000_000),
    taskBytesPerUser,
    taskBytesPerTenant: integer(
      env,
      'MCP_TASK_BYTES_PER_TENANT',
      64 * 1024 * 1024,
      64 * 1024,
      64 * 1024 * 1024 * 1024,
    ),
  };
}

function origins(env: Env): string[] {
  const raw = env.MCP_ALLOWED_ORIGINS ?? 'http://localhost:6274,http://127.0.0.1:6274';
  const list = raw
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of list) {
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      throw new ConfigError(
        `MCP_ALLOWED_ORIGINS entries must be origins like http://localhost:6274; got "${origin}"`,
      );
    }
    if (parsed.origin !== origin) {
      throw new ConfigError(
        `MCP_ALLOWED_ORIGINS entries must be bare origins (scheme://host[:port]); got "${origin}"`,
      );
    }
  }
  return list;
}
