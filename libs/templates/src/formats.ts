import type { JsonSchema } from './json-schema';

export const TOOL_FORMATS = ['openai', 'anthropic', 'mcp'] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

export function isToolFormat(value: string): value is ToolFormat {
  return (TOOL_FORMATS as readonly string[]).includes(value);
}

/** A tool in the gateway's canonical shape, before a provider's wrapping. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  /** shape of the structured result, where the protocol has a place for it (MCP) */
  outputSchema?: JsonSchema;
  readOnly: boolean;
}

export function formatTool(tool: ToolDefinition, format: ToolFormat): object {
  switch (format) {
    case 'openai':
      return {
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
      };
    case 'anthropic':
      return { name: tool.name, description: tool.description, input_schema: tool.inputSchema };
    case 'mcp':
      return {
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
        annotations: {
          readOnlyHint: tool.readOnly,
          ...(tool.readOnly ? { destructiveHint: false, idempotentHint: true } : {}),
        },
      };
  }
}
