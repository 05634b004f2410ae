/** Errors of the templates library. Codes are string literals; the app maps them to HTTP. */
export type TemplateErrorCode = 'INVALID_REPORT' | 'INVALID_TEMPLATE';

export interface TemplateProblem {
  rule: string;
  message: string;
}

export class TemplateError extends Error {
  constructor(
    readonly code: TemplateErrorCode,
    readonly problems: TemplateProblem[],
  ) {
    super(problems.map((p) => p.message).join('; '));
    this.name = 'TemplateError';
  }
}
