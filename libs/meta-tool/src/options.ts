export const META_TOOL_OPTIONS = Symbol('META_TOOL_OPTIONS');

export interface MetaToolOptions {
  /** where generated tools live on disk, one directory per tenant */
  directory: string;
  /** wall-clock bound of one run, data calls included */
  timeoutMs: number;
  /** the engine's memory bound per run (QuickJS allocator limit) */
  memoryMb: number;
  /** META_TOOL_AUTO_APPROVE=1: the human gate is skipped (logged, and recorded as the approver) */
  autoApprove: boolean;
  /** META_TOOL_ENABLED (default on): off, meta_tool is not offered and installed tools do not run */
  enabled?: boolean;
  /** time executing inside the engine per run */
  cpuMs?: number;
  poolSize?: number;
  maxConcurrentPerTenant?: number;
  queueWaitMs?: number;
  /** ctx.query + ctx.report calls per run */
  maxQueriesPerRun?: number;
  recycleAfter?: number;
  /** how long a proposal call waits for the human decision before answering "pending" */
  approvalWaitMs?: number;
  maxToolsPerTenant?: number;
  maxPendingPerUser?: number;
  /** run sandbox children without a network namespace where the OS allows it */
  isolateNetwork?: boolean;
}

export const AUTO_APPROVER = 'auto-approve (META_TOOL_AUTO_APPROVE=1)';

export type ResolvedMetaToolOptions = Required<MetaToolOptions>;

export function resolveOptions(options: MetaToolOptions): ResolvedMetaToolOptions {
  return {
    enabled: true,
    cpuMs: Math.max(10, Math.floor(options.timeoutMs / 2)),
    poolSize: 4,
    maxConcurrentPerTenant: 2,
    queueWaitMs: 2000,
    maxQueriesPerRun: 20,
    recycleAfter: 500,
    approvalWaitMs: 0,
    maxToolsPerTenant: 200,
    maxPendingPerUser: 5,
    isolateNetwork: true,
    ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
  } as ResolvedMetaToolOptions;
}
