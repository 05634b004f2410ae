/**
 * What a tool call returns, and the one way to build it. Every tool (reports, built-ins,
 * meta_tool, generated tools, the disclosure tools) answers through these factories, so the
 * shape the transports map (HTTP 200 with `is_error`, MCP `isError`) is defined once. No
 * imports: any unit may use it without joining an import cycle.
 */

/** One page of a report's rows. */
export interface ToolResultPage {
  columns: Array<{ name: string; type: string }>;
  rows: Record<string, unknown>[];
  page: number;
  page_size: number;
  has_more: boolean;
}

export type ToolErrorCode =
  | 'INVALID_ARGUMENTS'
  | 'TIMEOUT'
  | 'RESULT_TOO_LARGE'
  | 'QUERY_FAILED'
  | 'DATA_UNAVAILABLE'
  | 'DATASOURCE_UNAVAILABLE'
  | 'REFUSED'
  | 'BUSY'
  | 'TOOL_FAILED';

/**
 * What a tool call returns: rows, or an error the model can act on. Never an HTTP error.
 * Reports return a page of rows; other tools return a structured result plus the text the
 * model is shown.
 */
export type ToolCallOutcome =
  | {
      tool: string;
      is_error: false;
      result: ToolResultPage;
      text?: undefined;
      /** ISO time the rows were read, when they come from the result cache (issue #41) */
      cached_at?: string;
    }
  | { tool: string; is_error: false; result: Record<string, unknown>; text: string }
  | { tool: string; is_error: true; error: { code: ToolErrorCode; message: string } };

export type ToolFailure = Extract<ToolCallOutcome, { is_error: true }>;

/** A failure whose code a transport may widen (a batch's `TOOL_NOT_FOUND`). */
export interface ToolFailureOf<C extends string> {
  tool: string;
  is_error: true;
  error: { code: C; message: string };
}

/** A call that ended in an error the model can act on. */
export function toolFailure<C extends string = ToolErrorCode>(
  tool: string,
  code: C,
  message: string,
): ToolFailureOf<C> {
  return { tool, is_error: true, error: { code, message } };
}

/** The JSON of a page's rows, kept when the page was built (the byte cap already needed it). */
const serialised = new WeakMap<ToolResultPage, string>();

/**
 * A report's page of rows. `rowsJson`, when given, is `JSON.stringify(result.rows)` as already
 * computed: answers reuse it instead of serialising the rows again.
 */
export function toolPage(tool: string, result: ToolResultPage, rowsJson?: string): ToolCallOutcome {
  if (rowsJson !== undefined) serialised.set(result, rowsJson);
  return { tool, is_error: false, result };
}

/** `JSON.stringify(page.rows)`, computed once per page. */
export function pageRowsJson(page: ToolResultPage): string {
  let json = serialised.get(page);
  if (json === undefined) {
    json = JSON.stringify(page.rows);
    serialised.set(page, json);
  }
  return json;
}

/** A structured result and the text the model is shown. */
export function toolText(
  tool: string,
  text: string,
  result: Record<string, unknown>,
): ToolCallOutcome {
  return { tool, is_error: false, text, result };
}

/** A structured result the model is shown as its JSON (the disclosure tools' answers). */
export function toolJson(tool: string, result: Record<string, unknown>): ToolCallOutcome {
  return { tool, is_error: false, result, text: JSON.stringify(result) };
}
