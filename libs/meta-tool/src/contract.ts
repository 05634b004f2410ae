/** The contract and limits of meta_tool and of the tools it creates. */
export const META_TOOL_NAME = 'meta_tool';
export const TOOL_REVIEWER_ROLE = 'tool_reviewer';
export const GENERATED_NAME_PATTERN = /^[a-z][a-z0-9_]*$/;
export const MAX_SOURCE_BYTES = 100 * 1024;
/** providers cap function names at 64 characters; a generated tool's name is its tool name */
export const MAX_NAME_CHARS = 64;
export const MAX_DESCRIPTION_CHARS = 1024;
export const MAX_SCHEMA_BYTES = 16 * 1024;
/** what the model sees of a generated tool's result, in characters */
export const RESULT_PREVIEW_CHARS = 400;

export interface ProposalInput {
  name: string;
  code: string;
  proposal_id?: string;
  testArgs?: Record<string, unknown>;
  description?: string;
}

export interface GateViolation {
  rule: string;
  message: string;
}

export type MetaToolErrorCode =
  | 'FORBIDDEN'
  | 'PROPOSAL_NOT_FOUND'
  | 'PROPOSAL_NOT_PENDING'
  | 'REFUSED'
  | 'GENERATED_TOOL_NOT_FOUND';

/** Domain errors of meta_tool; the gateway maps codes to HTTP statuses. */
export class MetaToolError extends Error {
  constructor(
    readonly code: MetaToolErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'MetaToolError';
  }
}

export function cut(text: string, max = RESULT_PREVIEW_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
