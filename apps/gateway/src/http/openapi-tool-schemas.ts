import { anyObject, bool, int, JsonSchema, list, obj, ref, str } from './openapi-schema-kit';
import type { Schema } from './openapi-schema-kit';

/** A tool as each provider format lists it (GET /v1/tools?format=...). */
export const TOOL_SHAPES: Record<string, Schema> = {
  OpenAiTool: {
    description: 'Chat Completions tool (format=openai)',
    ...obj({
      type: { type: 'string', enum: ['function'] },
      function: obj({ name: str, description: str, parameters: JsonSchema, strict: bool }, [
        'name',
        'parameters',
      ]),
    }),
  },
  ResponsesTool: {
    description: 'Responses API FunctionTool (format=openai-responses)',
    ...obj(
      {
        type: { type: 'string', enum: ['function'] },
        name: str,
        description: str,
        parameters: JsonSchema,
        strict: bool,
      },
      ['type', 'name', 'parameters', 'strict'],
    ),
  },
  AnthropicTool: {
    description: 'Anthropic Messages tool (format=anthropic)',
    ...obj({ name: str, description: str, input_schema: JsonSchema, strict: bool }, [
      'name',
      'input_schema',
    ]),
  },
  GeminiFunctionDeclaration: {
    description: 'Gemini FunctionDeclaration (format=gemini)',
    ...obj({ name: str, description: str, parametersJsonSchema: JsonSchema }, [
      'name',
      'parametersJsonSchema',
    ]),
  },
  McpTool: {
    description: 'MCP Tool (format=mcp)',
    ...obj(
      {
        name: str,
        title: str,
        description: str,
        inputSchema: JsonSchema,
        outputSchema: JsonSchema,
        annotations: anyObject,
      },
      ['name', 'inputSchema'],
    ),
  },
};

/** What the tools API answers: tool lists, result pages, call outcomes, charts, errors. */
export const RESULTS: Record<string, Schema> = {
  ErrorBody: {
    description: 'every HTTP error of the REST API',
    ...obj(
      {
        error: obj(
          {
            code: { ...str, examples: ['HTTP_400', 'UNAUTHENTICATED', 'TOOL_NOT_FOUND'] },
            message: str,
            details: anyObject,
          },
          ['code', 'message'],
        ),
        trace_id: str,
      },
      ['error'],
    ),
  },
  ToolList: {
    ...obj({ tools: list({ oneOf: Object.keys(TOOL_SHAPES).map(ref) }) }),
    additionalProperties: true,
  },
  ResultPage: obj({
    columns: list(obj({ name: str, type: str })),
    rows: list(anyObject),
    page: int,
    page_size: int,
    has_more: bool,
  }),
  CompactPage: obj({
    encoding: { type: 'string', enum: ['compact'] },
    columns: list(obj({ name: str, type: str })),
    rows: list(list({})),
    page: int,
    page_size: int,
    has_more: bool,
  }),
  ToolError: obj({ code: str, message: str }),
  ToolSuccess: obj(
    {
      tool: str,
      is_error: { type: 'boolean', enum: [false] },
      result: { oneOf: [ref('ResultPage'), ref('CompactPage'), anyObject] },
      text: { ...str, description: "a built-in or generated tool's text for the model" },
      cached_at: {
        ...str,
        format: 'date-time',
        description:
          "when the rows were read, for an answer from the result cache (the report's cache_ttl_seconds); absent: read for this call",
      },
      trace_id: str,
      meta: obj({ untrusted_data: { type: 'boolean', enum: [true] }, notice: str }),
      chart: ref('Chart'),
    },
    ['tool', 'is_error', 'result'],
  ),
  ToolFailure: obj(
    {
      tool: str,
      is_error: { type: 'boolean', enum: [true] },
      error: ref('ToolError'),
      trace_id: str,
    },
    ['tool', 'is_error', 'error'],
  ),
  ToolResult: { oneOf: [ref('ToolSuccess'), ref('ToolFailure')] },
  Chart: {
    ...obj(
      {
        format: { type: 'string', enum: ['vega-lite', 'svg'] },
        type: { type: 'string', enum: ['bar', 'line', 'area', 'pie', 'table'] },
        spec: { ...anyObject, description: 'a Vega-Lite v6 spec with the rows inline' },
        svg: { ...str, description: 'the chart drawn as an SVG document' },
        error: { ...str, description: 'why no chart was drawn (the result itself stands)' },
      },
      ['format'],
    ),
    description: "the page drawn as the report's chart, when the call asked for ?chart=",
  },
};
