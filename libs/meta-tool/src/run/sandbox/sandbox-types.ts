/** The shapes the sandbox pool and its callers share. */
import type { SandboxWrapper } from './wrapper';

export type SandboxStage =
  | 'import'
  | 'contract'
  | 'run'
  | 'timeout'
  | 'crash'
  | 'cpu'
  | 'memory'
  | 'output'
  | 'arguments'
  | 'busy';

export interface SandboxContract {
  problems: string[];
  name: unknown;
  description: unknown;
  /** the schema as JSON text, or null */
  schema: string | null;
  run: boolean;
}

export type SandboxOutcome =
  | { ok: true; contract: SandboxContract; called: boolean; result: unknown; resultJson: string }
  | { ok: false; stage: SandboxStage; message: string };

export interface SandboxLimits {
  /** QuickJS heap bound, enforced by the engine's allocator */
  memoryBytes: number;
  stackBytes: number;
  /** time spent executing inside the engine */
  cpuMs: number;
  /** characters of result JSON */
  outputBytes: number;
  maxHostCalls: number;
  maxLogLines: number;
}

export interface SandboxJob {
  tenantId: string;
  name: string;
  source: string;
  /** run it once with these arguments (as JSON text); without, only load and describe */
  call?: { argsJson: string };
  /** read-only caller facts given to the tool as ctx.user */
  user: Record<string, unknown>;
  /** wall-clock bound of the whole job, host calls included; past it the child is killed */
  timeoutMs: number;
  /** serves ctx.query / ctx.report: the JSON text of the value, or an Error for the tool */
  onHost(op: 'query' | 'report', a: string, bJson: string, signal: AbortSignal): Promise<string>;
  onLog(level: string, text: string): void;
}

export interface SandboxPoolOptions {
  size: number;
  perTenant: number;
  /** how long a call may wait for a free sandbox before it is answered "busy" */
  queueWaitMs: number;
  maxQueue: number;
  /** a child is replaced after this many jobs */
  recycleAfter: number;
  /** V8 heap flag of the child (the outer wall; the engine's own limit is the inner one) */
  childHeapMb: number;
  limits: SandboxLimits;
  /** run children in their own namespaces: bubblewrap where it works, else unshare -rn */
  isolateNetwork: boolean;
  /** a child program's text to run instead of `child/main.ts`: tests give a hostile one */
  workerSource?: string;
}

/** Which layers of the sandbox are active on this machine (for /healthz and the log). */
export interface SandboxLayers {
  engine: 'quickjs-wasm';
  process: 'pooled-child';
  permission_model: boolean;
  /** what the child runs inside: bubblewrap (namespaces and a read-only file view), unshare -rn, none */
  wrapper: SandboxWrapper;
  network_namespace: boolean;
  /** the child sees only system libraries, node and the packages (bubblewrap) */
  filesystem_view: boolean;
  /** the child cannot see or signal the gateway's processes (bubblewrap) */
  pid_namespace: boolean;
  pool_size: number;
}
