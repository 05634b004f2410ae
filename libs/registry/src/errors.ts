/** Domain errors of the registry; the gateway maps codes to HTTP statuses. */
export type RegistryErrorCode =
  | 'TOOL_NOT_FOUND'
  | 'UNKNOWN_CONTEXT'
  | 'TENANT_NOT_FOUND'
  | 'REPORT_NOT_FOUND'
  | 'INVALID_REPORT'
  | 'REPORT_CHANGED'
  | 'FORBIDDEN'
  | 'DATABASE_UNAVAILABLE'
  | 'DATASOURCE_NOT_FOUND'
  | 'INVALID_DATASOURCE'
  | 'DATASOURCE_IN_USE';

export class RegistryError extends Error {
  constructor(
    readonly code: RegistryErrorCode,
    message: string,
    /** model- and person-readable details, e.g. the valid contexts or the rejected rules */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'RegistryError';
  }
}

/** The one message for a tool that is missing or forbidden, so the two cannot be told apart. */
export function toolNotFound(name: string): RegistryError {
  return new RegistryError('TOOL_NOT_FOUND', `no tool named "${name}" is available to you`);
}
