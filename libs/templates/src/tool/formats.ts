import type { JsonSchema } from './json-schema';
import {
  ANTHROPIC_STRICT_RULES,
  GEMINI_RULES,
  nullableOptionals,
  OPENAI_STRICT_RULES,
  providerSchema,
} from './provider-schema';
import type { SchemaObject } from './provider-schema';

/**
 * Every shape a tool list is served in; also part of the list cache key. Callers ask with
 * `format` (the names without `-strict`) and `strict=true`.
 */
export const TOOL_FORMATS = [
  'openai',
  'openai-strict',
  'openai-responses',
  'openai-responses-strict',
  'anthropic',
  'anthropic-strict',
  'gemini',
  'mcp',
] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

/** The values of the `format` query parameter. */
export const REQUESTED_FORMATS = ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'];
const STRICT_CAPABLE = new Set(['openai', 'openai-responses', 'anthropic']);

export function isToolFormat(value: string): value is ToolFormat {
  return (TOOL_FORMATS as readonly string[]).includes(value);
}

/**
 * `format` and `strict` as a caller sends them -> the format served, or the message of a 400.
 * Absent format is `openai`; absent strict is false.
 */
export function requestedFormat(
  format: unknown,
  strict: unknown,
): { ok: true; format: ToolFormat } | { ok: false; message: string } {
  const name = format === undefined || format === '' ? 'openai' : format;
  if (typeof name !== 'string' || !REQUESTED_FORMATS.includes(name))
    return {
      ok: false,
      message: `format must be one of ${REQUESTED_FORMATS.join(', ')}; got ${JSON.stringify(format)}`,
    };
  if (strict === undefined || strict === '' || strict === 'false')
    return { ok: true, format: name as ToolFormat };
  if (strict !== 'true')
    return { ok: false, message: `strict must be true or false; got ${JSON.stringify(strict)}` };
  if (!STRICT_CAPABLE.has(name))
    return {
      ok: false,
      message: `strict=true applies to format openai, openai-responses or anthropic; ${name} has no strict mode`,
    };
  return { ok: true, format: `${name}-strict` as ToolFormat };
}

/** A tool in the gateway's canonical shape, before a provider's wrapping. */
export interface ToolDefinition {
  name: string;
  /** human-readable name (MCP `title`), e.g. the report's name */
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  /** shape of the structured result, where the protocol has a place for it (MCP) */
  outputSchema?: JsonSchema;
  readOnly: boolean;
  /** MCP `_meta` of the tool (a report's chart View, issue #33) */
  meta?: Record<string, unknown>;
}

export function formatTool(tool: ToolDefinition, format: ToolFormat): object {
  const input = tool.inputSchema as SchemaObject;
  switch (format) {
    case 'openai':
      return {
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: input },
      };
    case 'openai-strict': {
      const { schema, strict } = strictOr(input, OPENAI_STRICT_RULES);
      return {
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: schema, strict },
      };
    }
    case 'openai-responses':
      return {
        type: 'function',
        name: tool.name,
        description: tool.description,
        parameters: input,
        strict: false,
      };
    case 'openai-responses-strict': {
      const { schema, strict } = strictOr(input, OPENAI_STRICT_RULES);
      return {
        type: 'function',
        name: tool.name,
        description: tool.description,
        parameters: schema,
        strict,
      };
    }
    case 'anthropic':
      return { name: tool.name, description: tool.description, input_schema: input };
    case 'anthropic-strict': {
      const { schema, strict } = strictOr(input, ANTHROPIC_STRICT_RULES);
      return {
        name: tool.name,
        description: tool.description,
        input_schema: schema,
        ...(strict ? { strict: true } : {}),
      };
    }
    case 'gemini':
      return {
        name: tool.name,
        description: tool.description,
        parametersJsonSchema: providerSchema(input, GEMINI_RULES).schema,
      };
    case 'mcp':
      return {
        name: tool.name,
        ...(tool.title ? { title: tool.title } : {}),
        description: tool.description,
        inputSchema: nullableOptionals(input),
        ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
        ...(tool.meta ? { _meta: tool.meta } : {}),
        annotations: {
          ...(tool.title ? { title: tool.title } : {}),
          readOnlyHint: tool.readOnly,
          ...(tool.readOnly ? { destructiveHint: false, idempotentHint: true } : {}),
        },
      };
  }
}

/**
 * The strict schema, or (for a schema strict mode cannot express, such as a free-form object)
 * the plain schema with strict off for that one tool: the provider accepts the list either way.
 */
function strictOr(input: SchemaObject, rules: typeof OPENAI_STRICT_RULES) {
  const rewritten = providerSchema(input, rules);
  return rewritten.strictable
    ? { schema: rewritten.schema, strict: true }
    : { schema: input, strict: false };
}
