import { flag, flagOn, integer } from './env';
import type { Env } from './env';

/** meta_tool and its generated tools: META_TOOL_*, GENERATED_TOOLS_DIR. */
export interface MetaToolSettings {
  /** generated tools on disk, one directory per tenant */
  directory: string;
  timeoutMs: number;
  memoryMb: number;
  autoApprove: boolean;
  enabled: boolean;
  cpuMs: number;
  poolSize: number;
  maxConcurrentPerTenant: number;
  queueWaitMs: number;
  maxQueriesPerRun: number;
  recycleAfter: number;
  approvalWaitMs: number;
  maxToolsPerTenant: number;
  maxPendingPerUser: number;
  isolateNetwork: boolean;
}

export function metaToolSettings(env: Env): MetaToolSettings {
  return {
    directory: env.GENERATED_TOOLS_DIR || `${env.DATA_DIR || '.data'}/generated-tools`,
    timeoutMs: integer(env, 'META_TOOL_TIMEOUT_MS', 5000, 100, 120_000),
    memoryMb: integer(env, 'META_TOOL_MEMORY_MB', 64, 16, 4096),
    autoApprove: flag(env, 'META_TOOL_AUTO_APPROVE'),
    enabled: flagOn(env, 'META_TOOL_ENABLED'),
    cpuMs: integer(
      env,
      'META_TOOL_CPU_MS',
      Math.floor(integer(env, 'META_TOOL_TIMEOUT_MS', 5000, 100, 120_000) / 2),
      10,
      120_000,
    ),
    poolSize: integer(env, 'META_TOOL_POOL_SIZE', 4, 1, 64),
    maxConcurrentPerTenant: integer(env, 'META_TOOL_MAX_CONCURRENT_PER_TENANT', 2, 1, 64),
    queueWaitMs: integer(env, 'META_TOOL_QUEUE_WAIT_MS', 2000, 0, 60_000),
    maxQueriesPerRun: integer(env, 'META_TOOL_MAX_QUERIES_PER_RUN', 20, 1, 1000),
    recycleAfter: integer(env, 'META_TOOL_RECYCLE_AFTER', 500, 1, 1_000_000),
    approvalWaitMs: integer(env, 'META_TOOL_APPROVAL_WAIT_MS', 0, 0, 120_000),
    maxToolsPerTenant: integer(env, 'META_TOOL_MAX_TOOLS_PER_TENANT', 200, 0, 100_000),
    maxPendingPerUser: integer(env, 'META_TOOL_MAX_PENDING_PER_USER', 5, 0, 10_000),
    isolateNetwork: flagOn(env, 'META_TOOL_NETWORK_ISOLATION'),
  };
}
