import type { JsonSchema, ToolDefinition } from '@app/templates';

export const SEARCH_TOOLS = 'search_tools';
export const DESCRIBE_TOOLS = 'describe_tools';
export const CALL_TOOL = 'call_tool';
export const DISCLOSURE_TOOL_NAMES: readonly string[] = [SEARCH_TOOLS, DESCRIBE_TOOLS, CALL_TOOL];

export const SEARCH_LIMIT_MAX = 25;
export const DESCRIBE_MAX = 20;

const searchSchema: JsonSchema = {
  type: 'object',
  properties: {
    query: {
      type: 'string',
      minLength: 1,
      maxLength: 500,
      description: 'what the user wants to know, in their words',
    },
    limit: { type: 'integer', minimum: 1, maximum: SEARCH_LIMIT_MAX, default: 10 },
  },
  required: ['query'],
  additionalProperties: false,
};

const describeSchema: JsonSchema = {
  type: 'object',
  properties: {
    names: {
      type: 'array',
      items: { type: 'string' },
      minItems: 1,
      maxItems: DESCRIBE_MAX,
      description: 'tool names from search_tools',
    },
  },
  required: ['names'],
  additionalProperties: false,
} as JsonSchema;

const callSchema: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'a tool name from search_tools' },
    arguments: { type: 'object', description: "the tool's arguments (see describe_tools)" },
  },
  required: ['name'],
  additionalProperties: false,
} as JsonSchema;

/**
 * The built-ins served instead of a long list: find tools, read their definitions, call one.
 * Every one of them acts only within the caller's own visible set.
 */
export const DISCLOSURE_TOOLS: readonly ToolDefinition[] = [
  {
    name: SEARCH_TOOLS,
    description:
      'Search all reports you may use (more than are listed here). Give the question in plain words; returns tool names, titles and one-line descriptions, best first.',
    inputSchema: searchSchema,
    readOnly: true,
  },
  {
    name: DESCRIBE_TOOLS,
    description:
      'Full definitions (arguments and what they return) of tools found with search_tools.',
    inputSchema: describeSchema,
    readOnly: true,
  },
  {
    name: CALL_TOOL,
    description:
      'Call a tool found with search_tools by name, with its arguments, without waiting for it to be listed.',
    inputSchema: callSchema,
    readOnly: true,
  },
];
