import type { Parsed } from './call-body';
import { parseArguments } from './call-body';

/**
 * Tool calls as the providers return them, and the messages that carry the results back:
 * OpenAI Chat Completions (`tool_calls`, string arguments -> `role: "tool"` messages), OpenAI
 * Responses (`function_call` output items -> `function_call_output` input items) and
 * Anthropic Messages (`tool_use` blocks -> one user message of `tool_result` blocks).
 */
export type ProviderFormat = 'openai' | 'openai-responses' | 'anthropic';

export interface ProviderCall {
  id: string;
  name: string;
  arguments: Parsed<unknown>;
}

export interface CallBatch {
  format: ProviderFormat;
  calls: ProviderCall[];
}

/** What the model is shown of one call. */
export interface CallText {
  id: string;
  text: string;
  isError: boolean;
}

export const MAX_CALLS_PER_BATCH = 32;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(item: Record<string, unknown>, key: string, where: string): Parsed<string> {
  const value = item[key];
  if (typeof value === 'string' && value !== '') return { ok: true, value };
  return { ok: false, message: `${where}.${key} must be a non-empty string` };
}

type Item = Record<string, unknown>;

function openAiCall(item: Item, where: string): Parsed<ProviderCall> {
  const id = field(item, 'id', where);
  if (!id.ok) return id;
  const fn = item.function;
  if (!isObject(fn)) return { ok: false, message: `${where}.function must be an object` };
  const name = field(fn, 'name', `${where}.function`);
  if (!name.ok) return name;
  return {
    ok: true,
    value: { id: id.value, name: name.value, arguments: parseArguments(fn.arguments) },
  };
}

function responsesCall(item: Item, where: string): Parsed<ProviderCall> {
  const id = field(item, 'call_id', where);
  if (!id.ok) return id;
  const name = field(item, 'name', where);
  if (!name.ok) return name;
  return {
    ok: true,
    value: { id: id.value, name: name.value, arguments: parseArguments(item.arguments) },
  };
}

function anthropicCall(item: Item, where: string): Parsed<ProviderCall> {
  const id = field(item, 'id', where);
  if (!id.ok) return id;
  const name = field(item, 'name', where);
  if (!name.ok) return name;
  return {
    ok: true,
    value: { id: id.value, name: name.value, arguments: { ok: true, value: item.input ?? {} } },
  };
}

const SHAPES: Array<{
  key: string;
  format: ProviderFormat;
  /** which items of the list are calls (others, e.g. text blocks, are skipped) */
  isCall: (item: Item) => boolean;
  parse: (item: Item, where: string) => Parsed<ProviderCall>;
}> = [
  { key: 'tool_calls', format: 'openai', isCall: () => true, parse: openAiCall },
  {
    key: 'output',
    format: 'openai-responses',
    isCall: (i) => i.type === 'function_call',
    parse: responsesCall,
  },
  {
    key: 'content',
    format: 'anthropic',
    isCall: (i) => i.type === 'tool_use',
    parse: anthropicCall,
  },
];

/**
 * The body of `POST /v1/tool-calls`: an OpenAI assistant message (or just `{tool_calls}`), a
 * Responses API response (or `{output}`), or an Anthropic assistant message (or `{content}`).
 */
export function parseCallBatch(body: unknown): Parsed<CallBatch> {
  if (!isObject(body))
    return { ok: false, message: 'the body must be a JSON object; see the examples in /docs' };
  const shape = SHAPES.find((s) => Array.isArray(body[s.key]));
  if (!shape)
    return {
      ok: false,
      message:
        'send the provider\'s tool calls as they came: {"tool_calls":[...]} (OpenAI Chat Completions), {"output":[...]} (OpenAI Responses) or {"content":[...tool_use blocks]} (Anthropic)',
    };
  const items = body[shape.key] as unknown[];
  const calls: ProviderCall[] = [];
  for (const [index, item] of items.entries()) {
    const where = `${shape.key}[${index}]`;
    if (!isObject(item)) return { ok: false, message: `${where} must be an object` };
    if (!shape.isCall(item)) continue;
    const call = shape.parse(item, where);
    if (!call.ok) return call;
    calls.push(call.value);
  }
  if (calls.length === 0)
    return { ok: false, message: `${shape.key} holds no tool call; nothing to run` };
  if (calls.length > MAX_CALLS_PER_BATCH)
    return {
      ok: false,
      message: `${calls.length} tool calls in one request; the limit is ${MAX_CALLS_PER_BATCH}`,
    };
  const ids = new Set(calls.map((c) => c.id));
  if (ids.size !== calls.length)
    return { ok: false, message: 'two tool calls have the same id; each id must be unique' };
  return { ok: true, value: { format: shape.format, calls } };
}

/** The messages to append to the conversation, in the provider's own shape. */
export function resultMessages(format: ProviderFormat, texts: CallText[]): object {
  switch (format) {
    case 'openai':
      return {
        messages: texts.map((t) => ({ role: 'tool', tool_call_id: t.id, content: t.text })),
      };
    case 'openai-responses':
      return {
        input: texts.map((t) => ({ type: 'function_call_output', call_id: t.id, output: t.text })),
      };
    case 'anthropic':
      return {
        message: {
          role: 'user',
          content: texts.map((t) => ({
            type: 'tool_result',
            tool_use_id: t.id,
            content: t.text,
            ...(t.isError ? { is_error: true } : {}),
          })),
        },
      };
  }
}
