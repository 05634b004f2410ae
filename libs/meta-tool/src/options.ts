export const META_TOOL_OPTIONS = Symbol('META_TOOL_OPTIONS');

export interface MetaToolOptions {
  /** where generated tools live on disk, one directory per tenant */
  directory: string;
  timeoutMs: number;
  memoryMb: number;
  /** META_TOOL_AUTO_APPROVE=1: the human gate is skipped (logged, and recorded as the approver) */
  autoApprove: boolean;
}

export const AUTO_APPROVER = 'auto-approve (META_TOOL_AUTO_APPROVE=1)';
