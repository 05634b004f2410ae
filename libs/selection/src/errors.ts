export type SelectionErrorCode = 'INVALID_SELECT_REQUEST' | 'WORD_VECTORS_INVALID';

/** A refusal of a select/search request; the app maps the code to an HTTP status. */
export class SelectionError extends Error {
  constructor(
    readonly code: SelectionErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SelectionError';
  }
}
